#!/bin/bash
# Runs `blocker-bench x11` against a private Xvfb + openbox (scripts/with-xvfb.sh).
#   scripts/bench-x11.sh [BLOCKER_BENCH] [-- bench options]
# BLOCKER_BENCH defaults to .build/release/blocker-bench (swift build -c release --product blocker-bench).
set -euo pipefail
bench=${1:-.build/release/blocker-bench}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
[ -x "$bench" ] || { echo "bench-x11: $bench not built (swift build -c release --product blocker-bench)" >&2; exit 1; }

exec "$(dirname "$0")/with-xvfb.sh" "$bench" x11 "$@"
