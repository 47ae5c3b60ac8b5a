#!/usr/bin/env bash
# Lists the types whose javadoc opens with a long first paragraph (more than two sentences or more
# than three lines) and prints their share of all types, over every src/main/java in the repository:
# the Maven modules and the examples. The measure itself is scripts/javadoc-contracts.py's.
# Usage: scripts/javadoc-first-paragraphs.sh [--max-share F]   (F a fraction, default 0.10)
# Exits 1 when the share is above F.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mapfile -t dirs < <(find . -path ./.git -prune -o -path '*/node_modules' -prune \
  -o -path '*/target' -prune -o -type d -path '*/src/main/java' -print | sed 's:^\./::' | sort)
exec python3 scripts/javadoc-contracts.py "$@" "${dirs[@]}"
