#!/usr/bin/env bash
# The acceptance run of STRICT tags against the packaged server (docs/ordering.md#acceptance-run):
# three `java -jar leaf-server.jar` processes on a fresh database of the MariaDB at
# 127.0.0.1:3306, NextId and NextIdBatch callers through all of them while the owner is killed -9
# and the next owner SIGSTOPped past its lease, then NextSequence on 500 keys while a server
# holding sequence groups is killed -9; every call's order checked offline.
#
#   scripts/strict-acceptance.sh [FLAG VALUE]...   flags of scripts/StrictAcceptance.java (--help)
#
# Environment:
#   LEAF_JAR      the server jar (default server/target/leaf-server.jar, built by `make build`
#                 or `mvn -pl leaf-proto,client-stub,server -am package -DskipTests`)
#   LEAF_ACCEPTANCE_TIMEOUT  seconds the whole run may take (default 900)
#   LEAF_ACCEPTANCE_KEEP     non-empty: keep the logs and calls of a passing run too
#
# Prints one summary line per part and exits 0 when order held, no ID repeated and both parts
# served after their failures; 1 otherwise; 2 when the run could not be made. The servers' logs
# and every call (CSV) are kept in the printed directory when the run does not pass. Every server
# started is killed and the database dropped on every exit, Ctrl-C included.
set -euo pipefail

cd "$(dirname "$0")/.."
JAR="${LEAF_JAR:-server/target/leaf-server.jar}"
if [ ! -f "$JAR" ]; then
  echo "no $JAR: build it first (make build)" >&2
  exit 2
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/leaf-strict-acceptance.XXXXXX")"
runner=

clean_up() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
    kill -TERM "$runner" 2>/dev/null || true
    for _ in $(seq 1 300); do
      kill -0 "$runner" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$runner" 2>/dev/null || true
  fi
  # Servers the runner could not kill itself (it was killed first): each checked to be the server
  # started on that port before it is signalled.
  if [ -f "$WORK/pids" ]; then
    while read -r pid port; do
      if [ -r "/proc/$pid/cmdline" ] &&
        tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-jar .* --port $port "; then
        kill -CONT "$pid" 2>/dev/null || true
        kill -KILL "$pid" 2>/dev/null || true
      fi
    done < "$WORK/pids"
  fi
  if [ -f "$WORK/database" ]; then
    db="$(cat "$WORK/database")"
    client="$(command -v mariadb || command -v mysql || true)"
    if [ -n "$client" ]; then
      "$client" -h 127.0.0.1 -P 3306 -u root -e "DROP DATABASE IF EXISTS \`$db\`" 2>/dev/null || true
    fi
  fi
  if [ "$status" = 0 ] && [ -z "${LEAF_ACCEPTANCE_KEEP:-}" ]; then
    rm -rf "$WORK"
  else
    echo "server logs and calls kept in $WORK"
  fi
  exit "$status"
}
trap clean_up EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

timeout "${LEAF_ACCEPTANCE_TIMEOUT:-900}" \
  java -cp "$JAR" scripts/StrictAcceptance.java --jar "$JAR" --work "$WORK" "$@" &
runner=$!
status=0
wait "$runner" || status=$?
runner=
exit "$status"
