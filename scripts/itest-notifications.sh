#!/usr/bin/env bash
# Desktop notifications from blockerd to a real notification server (dunst on
# Xvfb, a private dbus-daemon): one warning per [warn] threshold crossing, one
# countdown updated in place under the last threshold, "Time's up" when the
# shield goes up; an app id and a group name with markup in them reach the
# body as text (issue 20, row 9). Exit 0 = pass.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-notifications
fx_programs blockerd blockerctl
dir=$fx_dir

read -r display xvfb_pid < <(fx_xvfb "$dir" 800x600x24) || fail "Xvfb did not start"
fx_track "$xvfb_pid"
export DISPLAY=":$display"
# A session bus without service activation, so a stopped dunst stays stopped.
read -r address bus_pid < <(fx_session_bus "$dir") || fail "dbus-daemon did not start"
fx_track "$bus_pid"
export DBUS_SESSION_BUS_ADDRESS=$address TZ=UTC HOME=$dir NO_AT_BRIDGE=1
mkdir -p "$dir/dunst"
# Urgencies are told apart by their timeouts (dunstctl history has no urgency field).
printf '[global]\n    history_length = 50\n[urgency_low]\n    timeout = 777\n[urgency_normal]\n    timeout = 888\n' >"$dir/dunst/dunstrc"
dunst -config "$dir/dunst/dunstrc" >"$dir/dunst.log" 2>&1 &
dunst_pid=$!
fx_track "$dunst_pid"
for _ in $(seq 50); do dunstctl is-paused >/dev/null 2>&1 && break; sleep 0.1; done
dunstctl is-paused >/dev/null 2>&1 || fail "dunst did not take the bus name"

fx_config "$dir/.config/blocker/blocker.toml" "$dir/front.json" command 500ms 0.1
cat >>"$dir/.config/blocker/blocker.toml" <<'TOML'
[warn]
before = ["4s", "2s"]
[[group]]
name = "games & <b>fun</b>"
apps = ['a & <span size="99999">x</span>']
metered = false
daily-limit = "2s"
TOML
echo null >"$dir/front.json"
# dunst_history_after REASON — once the shield is up for REASON (10 s at most)
# and the last notification had time to arrive: all closed, dunst's history
# in $dir/history.json.
dunst_history_after() {
    local reason=$1
    # Not there in time: the history's checks below say what is missing.
    fx_wait 10 eval '"$bin/blockerctl" status --json | grep -q "\"reason\": *\"$reason\""' || true
    sleep 0.5
    dunstctl close-all
    sleep 0.3
    dunstctl history >"$dir/history.json" || fail "dunstctl history"
}
fx_start_blockerd "$bin"
daemon_pid=$fx_daemon_pid
"$bin/blockerctl" earn 1 pushups >/dev/null || fail "earn"            # 6 s
echo '{"app":"discord","title":"chat","pid":1}' >"$dir/front.json"
# 6 s of balance at 2 ticks a second: crosses 4 s, counts down under 2 s, runs out.
dunst_history_after balance
python3 - "$dir/history.json" <<'PY' || fail "notifications: $(cat "$dir/history.json")"
import json, sys
items = json.load(open(sys.argv[1]))["data"][0]
summaries = [n["summary"]["data"] for n in items]
print("dunst history:", summaries)
warnings = [s for s in summaries if s == "4s 00s left for discord" or s == "4s left for discord"]
assert len(warnings) == 1, ("one warning at 4s", summaries)
countdown = [n for n in items if n["summary"]["data"].endswith("left for discord") and n["summary"]["data"] not in warnings]
assert len(countdown) == 1, ("one countdown, updated in place", summaries)
low, normal = 777 * 1000 * 1000, 888 * 1000 * 1000
assert countdown[0]["timeout"]["data"] == low, ("the countdown has low urgency", countdown[0]["timeout"])
assert all(n["timeout"]["data"] == normal for n in items if n is not countdown[0]), "warnings are normal urgency"
assert countdown[0]["summary"]["data"] in ("0s left for discord", "1s left for discord"), countdown[0]["summary"]
up = [s for s in summaries if s == "Time's up for discord"]
assert len(up) == 1, ("one time's up", summaries)
assert len(items) == 3, summaries
PY
ok "dunst received one warning, one countdown updated in place (low urgency), one time's up"

# Markup in an app id (any program picks its own) and a group name: the
# summary is plain text by the specification (dunst escapes it itself); the
# body, which servers parse as markup, goes out escaped.
echo '{"app":"a & <span size=\"99999\">x</span>","title":"t","pid":1}' >"$dir/front.json"
dunst_history_after daily-limit
python3 - "$dir/history.json" <<'PY' || fail "markup in a notification: $(cat "$dir/history.json")"
import json, sys
items = json.load(open(sys.argv[1]))["data"][0]
blocked = [n for n in items if n["summary"]["data"] == 'a & <span size="99999">x</span> is blocked']
assert len(blocked) == 1, [n["summary"]["data"] for n in items]
body = blocked[0]["body"]["data"]
assert body == "Daily limit for games &amp; &lt;b&gt;fun&lt;/b&gt; reached", body
PY
ok "markup in an app id and a group name: summary plain, body escaped (as dunst received them)"
echo '{"app":"discord","title":"chat","pid":1}' >"$dir/front.json"

# No notification server: said once in the journal, not once per tick.
kill -TERM "$dunst_pid"; wait "$dunst_pid" 2>/dev/null
"$bin/blockerctl" earn 1 pushups >/dev/null || fail "earn again"
for _ in $(seq 100); do
    "$bin/blockerctl" status --json | grep -q '"reason": *"balance"' && break
    sleep 0.1
done
sleep 0.5
n=$(grep -c "no desktop notifications" "$dir/daemon.log")
[ "$n" = 1 ] || fail "a missing notification server was logged $n times, not once"
kill -0 "$daemon_pid" || fail "blockerd died without a notification server"
ok "no notification server: logged once, blockerd keeps running"
