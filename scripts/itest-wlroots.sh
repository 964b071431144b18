#!/usr/bin/env bash
# itest-wlroots.sh — blockerd with `--probe wlroots` (wlr-foreign-toplevel-
# management, no sway IPC) charges a metered app under a real headless sway,
# run as the unprivileged user blocker-sway, on a private session bus:
#
#   1. the probe is wlroots and working; the metered foot (app id
#      blocker-meter) in front is the status's foreground, with pid null;
#   2. with it in front the balance goes down by about the time that passed;
#   3. with another foot in front nothing is charged;
#   4. `blockerctl probe --json` says pid null and why (pid_unavailable);
#   5. `blockerctl probe --watch` prints a focus change as it happens.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init wlroots
fx_need sway swaymsg foot setpriv dbus-daemon python3

fx_start_bus
oe_start_sway 1
oe_open_foots blocker-meter elsewhere

oe_write_config 0.5 'probe = "wlroots"'    # pushups earn 30 s a rep
oe_start_blockerd wlroots
[ "$(oe_status 's["probe"]["name"], s["probe"]["ok"]')" = "wlroots True" ] \
    || fail "blockerd's wlroots probe is not working: $(oe_status 's["probe"]')"
oe_ctl earn 4 pushups >/dev/null         # 2 minutes

focus() { swaymsg "[app_id=$1] focus" >/dev/null; }
front() { oe_status '(s["foreground"] or {}).get("app")'; }
balance() { oe_status 's["balance_ms"]'; }

# 1. The metered app in front, as blockerd sees it through the protocol.
focus blocker-meter
fx_wait 3 eval '[ "$(front)" = blocker-meter ]' || fail "blockerd's foreground is $(front), not blocker-meter"
[ "$(oe_status 's["foreground"]["pid"], s["foreground"]["groups"], s["metered"]')" = "None ['meter'] True" ] \
    || fail "unexpected foreground: $(oe_status 's["foreground"], s["metered"]')"
fx_note "1. blocker-meter in front through zwlr_foreign_toplevel_manager_v1, pid null, metered"

# 2. It is charged for the time it is in front.
before=$(balance)
sleep 3
after=$(balance)
spent=$((before - after))
[ "$spent" -ge 2000 ] && [ "$spent" -le 4500 ] || fail "3 s with the metered app in front cost $spent ms"
fx_note "2. 3 s in front cost $spent ms"

# 3. Another window in front: nothing is charged.
focus elsewhere
fx_wait 3 eval '[ "$(front)" = elsewhere ]' || fail "the focus change did not reach blockerd (front: $(front))"
before=$(balance)
sleep 2
after=$(balance)
[ $((before - after)) -le 100 ] || fail "2 s with an unmetered app in front cost $((before - after)) ms"
fx_note "3. an unmetered window in front costs nothing ($((before - after)) ms in 2 s)"

# 4. blockerctl probe says why there is no pid.
json=$(oe_ctl probe --json --config "$fx_dir/blocker.toml")
[ "$(python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["probe"], j["app"], j["pid"], j["pid_unavailable"])' "$json")" \
    = "wlroots elsewhere None wlr-foreign-toplevel-management gives no pid" ] || fail "blockerctl probe --json said $json"
fx_note "4. blockerctl probe --json: $json"

# 5. blockerctl probe --watch follows a focus change as it happens.
oe_ctl probe --watch --json --config "$fx_dir/blocker.toml" >"$fx_dir/watch.log" 2>&1 &
watcher=$!
fx_track "$watcher"
fx_wait 3 grep -qs '"app":"elsewhere"' "$fx_dir/watch.log" || fail "probe --watch printed nothing: $(cat "$fx_dir/watch.log")"
focus blocker-meter
fx_wait 2 grep -qs '"app":"blocker-meter"' "$fx_dir/watch.log" \
    || fail "probe --watch did not follow the focus change: $(cat "$fx_dir/watch.log")"
fx_stop "$watcher"
fx_note "5. blockerctl probe --watch printed the focus change"
echo "wlroots: ok"
