#!/usr/bin/env bash
# Writes a class-data sharing archive (AppCDS) for the packaged server: one training start on a
# throw-away embedded H2 file, stopped with SIGTERM once the port is open and the worker ID is
# leased, so the archive holds the classes of start-up and of a graceful stop. `make run` passes
# it with -XX:SharedArchiveFile and the same flags (scripts/run.jvm); it halves launch → SERVING (docs/benchmarks.md, P12). The JVM
# checks the archive against the JDK and the jar paths it was made with and ignores it, with one
# warning line, when they differ: a stale archive costs speed, never correctness.
# Usage: scripts/cds-archive.sh JAR ARCHIVE  (JAR as it will be given to java -jar)
set -uo pipefail
jar=$1
archive=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rm -f "$archive"
java @"$(dirname "$0")/run.jvm" -XX:ArchiveClassesAtExit="$archive" -jar "$jar" --port 0 \
  --db-url "jdbc:h2:file:$dir/training;MODE=MySQL" >"$dir/log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  grep -q 'leased; IDs start above' "$dir/log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
if [ ! -s "$archive" ]; then
  echo "cds-archive: no archive written (the server's log follows); make run starts without it" >&2
  cat "$dir/log" >&2
  exit 0
fi
