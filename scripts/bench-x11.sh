#!/bin/bash
# Runs `blocker-bench x11` against a private Xvfb + openbox, stopped by PID on exit.
#   scripts/bench-x11.sh [BLOCKER_BENCH] [-- bench options]
# BLOCKER_BENCH defaults to .build/release/blocker-bench (swift build -c release --product blocker-bench).
set -euo pipefail
bench=${1:-.build/release/blocker-bench}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
[ -x "$bench" ] || { echo "bench-x11: $bench not built (swift build -c release --product blocker-bench)" >&2; exit 1; }

dir=$(mktemp -d)
xvfb_pid="" wm_pid=""
cleanup() {
    [ -n "$wm_pid" ] && kill "$wm_pid" 2>/dev/null && wait "$wm_pid" 2>/dev/null || true
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT

# -displayfd: Xvfb picks a free display and writes its number.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" 2>"$dir/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do [ -s "$dir/display" ] && break; sleep 0.05; done
[ -s "$dir/display" ] || { echo "bench-x11: Xvfb did not start:" >&2; cat "$dir/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$dir/display")"
unset WAYLAND_DISPLAY

# openbox sets _NET_SUPPORTING_WM_CHECK before it is done starting (an xterm
# mapped in between waits 5 s); --startup runs once it is.
openbox --startup "xprop -root -f _BLOCKER_BENCH_WM_READY 8s -set _BLOCKER_BENCH_WM_READY yes" >"$dir/openbox.log" 2>&1 &
wm_pid=$!
for _ in $(seq 200); do
    xprop -root _BLOCKER_BENCH_WM_READY 2>/dev/null | grep -q '"yes"' && break
    sleep 0.05
done

"$bench" x11 "$@"
