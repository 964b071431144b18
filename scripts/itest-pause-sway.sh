#!/usr/bin/env bash
# itest-pause-sway.sh — the pause before opening (issue 23) on Wayland: a
# headless sway (as the unprivileged user blocker-sway), a private session
# bus, blockerd with the sway probe, blocker-overlay (layer-shell) and two
# foot windows (the metered blocker-meter and blocker-free). blocker.toml:
# [pause] 3 s after 2 s away.
#
#   1. the metered foot comes to the front: the pause covers it (reason
#      pause) and nothing is charged during it; the overlay shows it;
#   2. "Not now" (AnswerPause, what the cover's button calls): sway moves the
#      window to the scratchpad, the shield is down;
#   3. back from the scratchpad after being away: a new pause; "Open" before
#      the countdown ends is refused, after it the app opens and is charged.
# itest-pause.sh runs the whole story (cap, pass, history, report) on X11.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init pause-sway
started=$(fx_now_ms)
fx_need sway swaymsg foot setpriv gdbus dbus-daemon python3

fx_start_bus
oe_start_sway 1
oe_open_foots blocker-free blocker-meter

oe_write_config 0.05
cat >>"$fx_dir/blocker.toml" <<'TOML'

[pause]
seconds = 3
after = "2s"
TOML
oe_start_blockerd sway
oe_start_overlay
oe_ctl earn 40 pushups >/dev/null || fail "blockerctl earn failed"   # 2 minutes

shield() { oe_shield_reason; }
balance() { oe_status 's["balance_ms"]'; }
focus() { swaymsg "[app_id=$1] focus" >/dev/null; }
in_scratchpad() { swaymsg -t get_tree | python3 -c '
import json, sys
def find(node, inside):
    if node.get("app_id") == "blocker-meter": return inside
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        found = find(child, inside or node.get("name") == "__i3_scratch")
        if found is not None: return found
    return None
sys.exit(0 if find(json.load(sys.stdin), False) else 1)'; }

# 1. The pause; nothing charged during it.
focus blocker-free
sleep 2.5
focus blocker-meter
fx_wait 3 eval '[ "$(shield)" = pause ]' || fail "no pause when the metered foot came to the front: $(shield)"
fx_wait 3 grep -qs "shown over blocker-meter (pause)" "$fx_dir/overlay.log" || fail "the overlay did not show the pause"
before=$(balance)
sleep 2
[ "$(balance)" = "$before" ] || fail "the pause was charged: balance $before → $(balance)"
fx_note "1. pause cover up on sway, nothing charged during it"

# 2. "Not now": to the scratchpad, shield down.
oe_answer_pause false >/dev/null || fail "AnswerPause(false) was refused"
fx_wait 3 in_scratchpad || fail "Not now did not move the window to the scratchpad"
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "the shield stayed up after Not now: $(shield)"
fx_note "2. Not now: the window in the scratchpad, the shield down"

# 3. Back after being away: a new pause; Open refused before the countdown, then opened and charged.
sleep 2.5
swaymsg "[app_id=blocker-meter] scratchpad show" >/dev/null
focus blocker-meter
fx_wait 3 eval '[ "$(shield)" = pause ]' || fail "no pause when it came back: $(shield)"
early=$(oe_answer_pause true) && fail "Open before the countdown's end was accepted"
grep -q "\"Open\" works from then" <<<"$early" || fail "the early Open's refusal does not say when: $early"
sleep 3.2
oe_answer_pause true >/dev/null || fail "Open after the countdown was refused"
fx_wait 3 eval '[ "$(shield)" = down ]' || fail "Open did not lift the pause: $(shield)"
opened=$(balance)
sleep 3
[ "$(balance)" -lt "$opened" ] || fail "opened, but not charged: balance $opened → $(balance)"
fx_note "3. back: paused again, the early Open refused, opened after the countdown and charged"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s"
