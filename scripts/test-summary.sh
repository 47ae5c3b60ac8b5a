#!/usr/bin/env bash
# Prints one line per test suite that `make test` ran: tests run, failed (failures + errors) and
# skipped. JUnit modules are read from their surefire XML reports; the Node and Python examples
# from the logs the Makefile keeps in target/test-logs/. Exits 1 when any suite failed or a log
# of a suite that ran has no counts.
cd "$(dirname "$0")/.."
status=0
printf '\n%-34s %7s %7s %7s\n' "suite" "run" "failed" "skipped"
for reports in */target/surefire-reports examples/*/target/surefire-reports; do
  [ -d "$reports" ] || continue
  set -- "$reports"/TEST-*.xml
  [ -e "$1" ] || continue
  read -r run failed skipped < <(cat "$reports"/TEST-*.xml | grep -o '<testsuite [^>]*>' | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); gsub(/"/, "", kv[2]);
        if (kv[1] == "tests") t += kv[2]; if (kv[1] == "failures" || kv[1] == "errors") f += kv[2];
        if (kv[1] == "skipped") s += kv[2] } }
    END { print t + 0, f + 0, s + 0 }')
  printf '%-34s %7d %7d %7d\n' "JUnit ${reports%%/target/*}" "$run" "$failed" "$skipped"
  [ "$failed" -eq 0 ] || status=1
done
for log in target/test-logs/*.log; do
  [ -e "$log" ] || continue
  name=$(basename "$log" .log)
  if grep -q '^SKIPPED' "$log"; then
    printf '%-34s %s\n' "$name" "$(grep -m1 '^SKIPPED' "$log")"
    continue
  fi
  if grep -q '^# tests ' "$log"; then   # node --test (TAP); several runs in one log are summed
    run=$(awk '/^# tests /{s+=$3} END{print s}' "$log")
    failed=$(awk '/^# fail /{s+=$3} END{print s}' "$log")
    skipped=$(awk '/^# skipped /{s+=$3} END{print s}' "$log")
  elif grep -q '^Ran [0-9]* tests\?' "$log"; then   # python -m unittest
    run=$(awk '/^Ran [0-9]+ test/{print $2}' "$log" | tail -1)
    last=$(grep -E '^(OK|FAILED)' "$log" | tail -1)
    failed=$(( $(echo "$last" | grep -o 'failures=[0-9]*' | cut -d= -f2 || true) + 0 \
      + $(echo "$last" | grep -o 'errors=[0-9]*' | cut -d= -f2 || true) + 0 ))
    skipped=$(( $(echo "$last" | grep -o 'skipped=[0-9]*' | cut -d= -f2 || true) + 0 ))
  else
    printf '%-34s %s\n' "$name" "no test counts in $log"
    status=1
    continue
  fi
  printf '%-34s %7d %7d %7d\n' "$name" "$run" "$failed" "$skipped"
  [ "$failed" -eq 0 ] || status=1
done
# The failed JUnit tests by name, with the first line of their message, last so a log's tail shows
# them (a report that cannot be parsed is named instead).
if [ "$status" -ne 0 ]; then
  for xml in $(grep -l -E '<(failure|error)[ >]' */target/surefire-reports/TEST-*.xml \
      examples/*/target/surefire-reports/TEST-*.xml 2>/dev/null); do
    if ! command -v python3 >/dev/null; then
      echo "FAILED tests in $xml (python3 not found to name them)"
      continue
    fi
    python3 - "$xml" 2>/dev/null <<'PY' || echo "FAILED tests in $xml (the report could not be read)"
import re, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding='utf-8', errors='replace').read()
# Surefire writes control characters as character references XML 1.0 does not allow.
text = re.sub(r'&#(x0*[0-8bcef]|x0*1[0-9a-f]|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]));', '?', text, flags=re.I)
for case in ET.fromstring(text).iter('testcase'):
    for kind in ('failure', 'error'):
        bad = case.find(kind)
        if bad is not None:
            message = (bad.get('message') or bad.get('type') or '').strip().splitlines()
            print(f"FAILED {case.get('classname')}.{case.get('name')}: {message[0][:300] if message else kind}")
PY
    # The class's own output (server logs), when the run sent it to a file (make test-fast).
    output="${xml%/TEST-*}/$(basename "${xml#*/TEST-}" .xml)-output.txt"
    if [ -s "$output" ]; then
      echo "--- last 60 lines of $output"
      tail -n 60 "$output"
      echo "---"
    fi
  done
fi
exit $status
