#!/usr/bin/env bash
# `make bench`: every benchmark, one table. Speed and memory targets are
# checked here, not by timed assertions in tests (these machines are noisy).
#   BENCH_SECONDS=60 make bench   — a shorter daemon run (default 600 s)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product blockerd >&2
swift build -c release --static-swift-stdlib --product blocker-bench >&2
bin=$(swift build -c release --show-bin-path)
printf '| %-46s | %15s | %-22s |\n' "measurement" "result" "target"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..48})" "$(printf -- '-%.0s' {1..17})" "$(printf -- '-%.0s' {1..24})"
scripts/bench-daemon.sh "$bin/blockerd"
