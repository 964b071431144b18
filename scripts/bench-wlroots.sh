#!/usr/bin/env bash
# bench-wlroots.sh — `blocker-bench wlroots` (the wlr-foreign-toplevel probe)
# against a real headless sway: scripts/bench-sway.sh with BENCH_PROBE=wlroots.
#
#   scripts/bench-wlroots.sh [BLOCKER_BENCH] [-- blocker-bench wlroots options]
BENCH_PROBE=wlroots exec "$(dirname "$0")/bench-sway.sh" "$@"
