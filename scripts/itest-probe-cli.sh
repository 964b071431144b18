#!/usr/bin/env bash
# `blockerctl probe` against a real X server (Xvfb + openbox, scripts/with-xvfb.sh):
# --json names the WM_CLASS class of the window in front, --watch prints one
# line per focus change until interrupted. Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${DISPLAY:-}" ] || [ "${1:-}" != --inside ]; then
    exec "$here/scripts/with-xvfb.sh" bash "$0" --inside
fi
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-probe-cli
fx_programs blockerctl
dir=$fx_dir
export HOME=$dir XDG_CONFIG_HOME=$dir/config
unset WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE

for class in Alpha Beta; do
    xterm -class "$class" -title "title of $class" -e sleep 1000 >/dev/null 2>&1 &
    fx_track $!
done
alpha=$(fx_x_window Alpha) || fail "no Alpha window"
beta=$(fx_x_window Beta) || fail "no Beta window"
fx_x_activate "$alpha" || fail "openbox did not activate the Alpha window"

"$bin/blockerctl" probe --json >"$dir/probe.json" 2>"$dir/err" || fail "probe --json: $(cat "$dir/err")"
python3 - "$dir/probe.json" <<'PY' || fail "probe --json: $(cat "$dir/probe.json")"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["probe"] == "x11", p
assert p["app"] == "Alpha" and p["title"] == "title of Alpha" and isinstance(p["pid"], int) and p["pid"] > 0, p
assert p["groups"] == [], p
PY
ok "probe --json: the X11 probe, WM_CLASS class, title, pid"

"$bin/blockerctl" probe --watch >"$dir/watch.txt" 2>&1 &
watch_pid=$!
fx_track "$watch_pid"
sleep 0.5
fx_x_activate "$beta" || fail "openbox did not activate Beta"; sleep 0.3
fx_x_activate "$alpha" || fail "openbox did not activate Alpha"; sleep 0.3
kill -INT "$watch_pid"
for _ in $(seq 20); do kill -0 "$watch_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$watch_pid" 2>/dev/null && fail "probe --watch did not stop on SIGINT"
lines=$(grep -c . "$dir/watch.txt")
grep -q Beta "$dir/watch.txt" || fail "probe --watch did not show the focus change: $(cat "$dir/watch.txt")"
[ "$lines" -ge 3 ] && [ "$lines" -le 4 ] || fail "probe --watch printed $lines lines for 2 changes: $(cat "$dir/watch.txt")"
ok "probe --watch: one line per change ($lines lines), stops on SIGINT"
