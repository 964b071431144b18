#!/bin/bash
# Runs a command inside a private Xvfb + openbox session (DISPLAY set for it),
# and stops both by PID when it ends, pass or fail.
#   scripts/with-xvfb.sh COMMAND [ARGS...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/with-xvfb.sh COMMAND [ARGS...]" >&2; exit 2; }
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
[ -s "$dir/display" ] || { echo "with-xvfb: Xvfb did not start:" >&2; cat "$dir/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$dir/display")"
unset WAYLAND_DISPLAY

# openbox sets _NET_SUPPORTING_WM_CHECK before it is done starting (an xterm
# mapped in between waits 5 s); --startup runs once it is.
openbox --startup "xprop -root -f _BLOCKER_WM_READY 8s -set _BLOCKER_WM_READY yes" >"$dir/openbox.log" 2>&1 &
wm_pid=$!
for _ in $(seq 200); do
    xprop -root _BLOCKER_WM_READY 2>/dev/null | grep -q '"yes"' && break
    sleep 0.05
done

"$@"
