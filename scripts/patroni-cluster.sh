#!/usr/bin/env bash
# A three-node PostgreSQL 15 cluster under Patroni on 127.0.0.1 for Leaf's tests, from Debian's
# patroni, etcd-server and postgresql-15: one etcd member as the DCS, three Patroni nodes, each
# with its own generated config, data directory and ports. synchronous_mode is on unless
# LEAF_PATRONI_SYNC=0: a commit is confirmed only once the synchronous standby has it, and only
# that standby may be promoted.
#
#   scripts/patroni-cluster.sh start      bring the cluster up (idempotent), wait for a leader and
#                                         two streaming replicas; prints "already running" when
#                                         it had nothing to start
#   scripts/patroni-cluster.sh stop       stop every node and etcd (SIGTERM, SIGKILL after a timeout)
#   scripts/patroni-cluster.sh kill N     kill -9 node N: its Patroni and its PostgreSQL, as a crash
#   scripts/patroni-cluster.sh restart N  start a killed node N again; it rejoins as a replica
#   scripts/patroni-cluster.sh leader     the number of the node holding the leader key
#   scripts/patroni-cluster.sh status     pid, role and state of every node
#   scripts/patroni-cluster.sh ports      the ports of every node
#   scripts/patroni-cluster.sh url        the multi-host JDBC URL (targetServerType=primary)
#
# Environment:
#   LEAF_PATRONI_DIR      base directory (default /tmp/leaf-patroni)
#   LEAF_PATRONI_PORT     PostgreSQL port of node 1; nodes 2 and 3 take the next two (default 5441)
#   LEAF_PATRONI_API_PORT Patroni REST port of node 1 (default 8011)
#   LEAF_PATRONI_ETCD_PORT etcd client port; the peer port is the next one (default 2391)
#   LEAF_PATRONI_SYNC     1 (default): synchronous_mode on; 0: asynchronous replication
#   LEAF_PATRONI_TTL      leader key TTL in seconds (default 10)
#   LEAF_PATRONI_TIMEOUT  seconds the cluster may take to form (default 120)
#
# Only processes named by this cluster's own pid files (and the postmasters of its own data
# directories) are ever signalled: the system PostgreSQL on 127.0.0.1:5432 is never touched.
# Every wait is bounded. A stop followed by a start begins from empty data directories.
set -euo pipefail

BASE="${LEAF_PATRONI_DIR:-/tmp/leaf-patroni}"
PG_PORT="${LEAF_PATRONI_PORT:-5441}"
API_PORT="${LEAF_PATRONI_API_PORT:-8011}"
ETCD_PORT="${LEAF_PATRONI_ETCD_PORT:-2391}"
SYNC="${LEAF_PATRONI_SYNC:-1}"
TTL="${LEAF_PATRONI_TTL:-10}"
TIMEOUT="${LEAF_PATRONI_TIMEOUT:-120}"
STOP_TIMEOUT=30
NODES="1 2 3"
PG_BIN=/usr/lib/postgresql/15/bin
SCOPE=leaf-patroni
# PostgreSQL refuses to run as root.
if [ "$(id -u)" = 0 ]; then RUN_USER=postgres; else RUN_USER="$(id -un)"; fi

log() { echo "[patroni] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

node_dir() { echo "$BASE/node$1"; }
conf() { echo "$(node_dir "$1")/patroni.yml"; }
pid_file() { echo "$(node_dir "$1")/patroni.pid"; }
node_log() { echo "$(node_dir "$1")/patroni.log"; }
data_dir() { echo "$(node_dir "$1")/data"; }
pg_port() { echo $((PG_PORT + $1 - 1)); }
api_port() { echo $((API_PORT + $1 - 1)); }
etcd_peer_port() { echo $((ETCD_PORT + 1)); }

as_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$RUN_USER" -- "$@"; else "$@"; fi
}

check_node_arg() {
  case "${1:-}" in
    1|2|3) ;;
    *) die "node must be 1, 2 or 3, got '${1:-}'" ;;
  esac
}

check_installed() {
  command -v patroni >/dev/null || die "patroni not found (apt-get install patroni)"
  command -v etcd >/dev/null || die "etcd not found (apt-get install etcd-server)"
  [ -x "$PG_BIN/postgres" ] || die "$PG_BIN/postgres not found (apt-get install postgresql-15)"
}

# The pid of a process recorded in pid file $1 when its command line contains $2, else nothing:
# a recycled pid is never signalled.
checked_pid() {
  local pf=$1 marker=$2 pid
  [ -s "$pf" ] || return 0
  pid="$(head -n 1 "$pf" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$marker"; then
    echo "$pid"
  fi
}

node_pid() { checked_pid "$(pid_file "$1")" "$(conf "$1")"; }
etcd_pid() { checked_pid "$BASE/etcd.pid" "$BASE/etcd"; }
# The postmaster of node N's data directory, if it runs (it outlives a killed Patroni).
postmaster_pid() { checked_pid "$(data_dir "$1")/postmaster.pid" "$(data_dir "$1")"; }

running() { [ -n "$(node_pid "$1")" ]; }

api() { curl -s --max-time 2 "http://127.0.0.1:$(api_port "$1")/$2" 2>/dev/null || true; }

# A top-level field of node N's GET /patroni, or nothing.
field_of() {
  api "$1" patroni | /usr/bin/python3 -c 'import json, sys
try:
    print(json.load(sys.stdin).get(sys.argv[1], ""))
except ValueError:
    pass' "$2"
}
role_of() { field_of "$1" role; }
state_of() { field_of "$1" state; }

start_etcd() {
  [ -n "$(etcd_pid)" ] && return 0
  mkdir -p "$BASE/etcd"
  setsid etcd --name leaf-etcd --data-dir "$BASE/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$(etcd_peer_port)" \
    --initial-advertise-peer-urls "http://127.0.0.1:$(etcd_peer_port)" \
    --initial-cluster "leaf-etcd=http://127.0.0.1:$(etcd_peer_port)" \
    --initial-cluster-state new --enable-v2=true \
    </dev/null >>"$BASE/etcd.log" 2>&1 &
  echo $! >"$BASE/etcd.pid"
  local deadline=$((SECONDS + 30))
  while [ $SECONDS -lt $deadline ]; do
    curl -s --max-time 1 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"' && {
      log "etcd up on 127.0.0.1:$ETCD_PORT"; return 0; }
    [ -n "$(etcd_pid)" ] || { tail -n 20 "$BASE/etcd.log" >&2; die "etcd exited at start"; }
    sleep 0.3
  done
  tail -n 20 "$BASE/etcd.log" >&2
  die "etcd not healthy after 30s"
}

write_conf() {
  local n=$1 dir sync_mode
  dir="$(node_dir "$n")"
  mkdir -p "$dir"
  if [ "$SYNC" = 1 ]; then sync_mode=true; else sync_mode=false; fi
  cat >"$(conf "$n")" <<EOF
# Generated by scripts/patroni-cluster.sh; rewritten on every start.
scope: $SCOPE
name: node$n
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$(api_port "$n")
  connect_address: 127.0.0.1:$(api_port "$n")
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
bootstrap:
  dcs:
    # A dead leader's key expires after ttl; loop_wait + 2 * retry_timeout must stay below it.
    ttl: $TTL
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: $sync_mode
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        shared_buffers: 32MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$(pg_port "$n")
  connect_address: 127.0.0.1:$(pg_port "$n")
  data_dir: $(data_dir "$n")
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: '$dir'
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
tags:
  nofailover: false
  noloadbalance: false
EOF
  if [ "$(id -u)" = 0 ]; then chown -R "$RUN_USER:" "$dir"; fi
}

launch() {
  local n=$1 pid deadline=$((SECONDS + 10))
  echo "---- $(date '+%F %T') start" >>"$(node_log "$n")"
  if [ "$(id -u)" = 0 ]; then chown "$RUN_USER:" "$(node_log "$n")"; fi
  # setsid keeps a Ctrl-C of the caller off the cluster.
  setsid runuser -u "$RUN_USER" -- patroni "$(conf "$n")" </dev/null >>"$(node_log "$n")" 2>&1 &
  pid=$!
  # runuser forks: the Patroni process is its child.
  while [ $SECONDS -lt $deadline ]; do
    local child
    child="$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' | head -n 1 || true)"
    if [ -n "$child" ] && tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null | grep -qF -- "$(conf "$n")"; then
      echo "$child" >"$(pid_file "$n")"
      return 0
    fi
    if [ "$(id -u)" != 0 ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(conf "$n")"; then
      echo "$pid" >"$(pid_file "$n")"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$(node_log "$n")" >&2; die "node $n: patroni exited at start"; }
    sleep 0.1
  done
  die "node $n: no patroni process found"
}

wait_cluster() {
  local deadline=$((SECONDS + TIMEOUT)) n leaders replicas
  while [ $SECONDS -lt $deadline ]; do
    leaders=0; replicas=0
    for n in $NODES; do
      case "$(role_of "$n"):$(state_of "$n")" in
        master:running|primary:running) leaders=$((leaders + 1)) ;;
        replica:running|sync_standby:running) replicas=$((replicas + 1)) ;;
      esac
    done
    if [ $leaders = 1 ] && [ $replicas = 2 ]; then
      if [ "$SYNC" != 1 ] || curl -s --max-time 2 "http://127.0.0.1:$(api_port "$(leader_node)")/cluster" | grep -q '"sync_standby"'; then
        return 0
      fi
    fi
    sleep 0.5
  done
  for n in $NODES; do log "node $n: $(role_of "$n") $(state_of "$n")"; tail -n 10 "$(node_log "$n")" >&2 || true; done
  die "no leader with two running replicas after ${TIMEOUT}s"
}

leader_node() {
  local n
  for n in $NODES; do
    case "$(role_of "$n")" in master|primary) echo "$n"; return 0 ;; esac
  done
}

stop_pid() {
  local pid=$1 what=$2 deadline
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$what (pid $pid) still running after ${STOP_TIMEOUT}s; kill -9"
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

stop_node() {
  local n=$1 pid pm
  pid="$(node_pid "$n")"
  [ -n "$pid" ] && stop_pid "$pid" "node $n patroni"
  pm="$(postmaster_pid "$n")"
  if [ -n "$pm" ]; then
    as_user "$PG_BIN/pg_ctl" -D "$(data_dir "$n")" -m immediate -w -t 20 stop >/dev/null 2>&1 \
      || stop_pid "$pm" "node $n postmaster"
  fi
  rm -f "$(pid_file "$n")"
}

cmd_start() {
  check_installed
  local t0=$SECONDS n up="" started=0
  mkdir -p "$BASE"
  for n in $NODES; do running "$n" && up="$up $n"; done
  if [ -z "$up" ]; then
    # Nothing runs: test data only, so start from nothing (etcd included: a new cluster).
    [ -n "$(etcd_pid)" ] && stop_pid "$(etcd_pid)" etcd
    for n in $NODES; do [ -n "$(postmaster_pid "$n")" ] && stop_node "$n"; done
    rm -rf "$BASE/etcd" "$BASE"/node*
  fi
  start_etcd
  for n in $NODES; do
    if ! running "$n"; then
      write_conf "$n"
      log "node $n: starting"
      started=1
      launch "$n"
      # The first node bootstraps alone, so the others find a leader to clone.
      [ -z "$up" ] && [ "$n" = 1 ] && wait_leader
    fi
  done
  wait_cluster
  log "cluster up: leader node $(leader_node), PostgreSQL ports $(pg_port 1),$(pg_port 2),$(pg_port 3), synchronous_mode $([ "$SYNC" = 1 ] && echo on || echo off) ($((SECONDS - t0))s)"
  [ $started = 1 ] || echo "already running"
}

wait_leader() {
  local deadline=$((SECONDS + TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    [ -n "$(leader_node)" ] && return 0
    sleep 0.5
  done
  tail -n 20 "$(node_log 1)" >&2 || true
  die "node 1 did not become leader after ${TIMEOUT}s"
}

cmd_stop() {
  local n
  for n in 3 2 1; do stop_node "$n"; done
  [ -n "$(etcd_pid)" ] && stop_pid "$(etcd_pid)" etcd
  rm -f "$BASE/etcd.pid"
  log "stopped"
}

cmd_kill() {
  check_node_arg "${1:-}"
  local n=$1 pid pm children
  pid="$(node_pid "$n")"
  pm="$(postmaster_pid "$n")"
  [ -n "$pid" ] || [ -n "$pm" ] || die "node $n is not running"
  # The whole node at once, as a machine crash: Patroni, the postmaster and its backends.
  children=""
  [ -n "$pm" ] && children="$(ps -o pid= --ppid "$pm" | tr -d ' ' | tr '\n' ' ' || true)"
  # shellcheck disable=SC2086
  kill -KILL $pid $pm $children 2>/dev/null || true
  rm -f "$(pid_file "$n")"
  log "node $n killed (patroni ${pid:-none}, postmaster ${pm:-none})"
}

cmd_restart() {
  check_node_arg "${1:-}"
  check_installed
  local n=$1
  running "$n" && die "node $n is running; kill it first"
  [ -n "$(postmaster_pid "$n")" ] && die "node $n's postmaster still runs"
  write_conf "$n"
  launch "$n"
  log "node $n restarted"
}

cmd_status() {
  local n pid
  for n in $NODES; do
    pid="$(node_pid "$n")"
    if [ -n "$pid" ]; then
      echo "node$n pid=$pid port=$(pg_port "$n") role=$(role_of "$n") state=$(state_of "$n")"
    else
      echo "node$n down port=$(pg_port "$n")"
    fi
  done
}

cmd_ports() {
  local n
  for n in $NODES; do
    echo "node$n pg=$(pg_port "$n") api=$(api_port "$n")"
  done
  echo "etcd client=$ETCD_PORT peer=$(etcd_peer_port)"
}

cmd_url() {
  echo "jdbc:postgresql://127.0.0.1:$(pg_port 1),127.0.0.1:$(pg_port 2),127.0.0.1:$(pg_port 3)/postgres?targetServerType=primary"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  kill) cmd_kill "${2:-}" ;;
  restart) cmd_restart "${2:-}" ;;
  leader) leader_node ;;
  status) cmd_status ;;
  ports) cmd_ports ;;
  url) cmd_url ;;
  *)
    echo "usage: $0 start|stop|kill N|restart N|leader|status|ports|url" >&2
    exit 2
    ;;
esac
