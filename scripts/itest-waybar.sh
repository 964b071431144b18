#!/usr/bin/env bash
# itest-waybar.sh — `blockerctl status --follow --format waybar` in a real
# waybar (custom module, return-type json) on a real headless sway (as the
# unprivileged user blocker-sway), with blockerd (sway probe) on a private bus:
#   1. the bar shows the earned balance with class ok (the module's CSS green);
#   2. the balance counts down in the bar while the metered foot is in front;
#   3. `blockerctl block meter --for 1m` puts the shield up: the bar turns to
#      class shielded (red) within 2 s, without waybar or blockerctl polling;
#   4. blockerd stopping turns it to class down; back, to shielded again;
#   5. (issue 20, row 9) a window titled `a & <span size="99999">x</span>`,
#      as any web page can title itself: the tooltip waybar gets carries it
#      as text (escaped: waybar reads the tooltip as Pango markup).
# Saves docs/waybar-ok.png and docs/waybar-shielded.png (the bar only).
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init waybar
started=$(fx_now_ms)
fx_need sway swaymsg foot waybar grim convert dbus-daemon python3
fx_start_bus
oe_start_sway 1
swaymsg exec "foot --app-id=blocker-meter sh" >/dev/null
fx_wait 10 eval 'swaymsg -t get_tree | grep -q "\"app_id\": \"blocker-meter\""' || fail "foot did not map"
oe_write_config 0.05   # pushups earn 3 s a rep
oe_start_blockerd sway

# The README's waybar module, with a tee that keeps what waybar was given.
mkdir -p "$fx_dir/waybar"
cat >"$fx_dir/waybar/config" <<JSON
{
    "layer": "top", "position": "top", "height": 30,
    "modules-left": ["custom/blocker"],
    "custom/blocker": {
        "exec": "$bin/blockerctl status --follow --format waybar --low 10s | tee -a $fx_dir/bar.jsonl",
        "return-type": "json",
        "format": "blocker {}"
    }
}
JSON
cat >"$fx_dir/waybar/style.css" <<'CSS'
* { font-family: "DejaVu Sans"; font-size: 16px; }
window#waybar { background: #202020; color: #ffffff; }
#custom-blocker { padding: 0 12px; }
#custom-blocker.ok { background: #1f9d55; }
#custom-blocker.low { background: #e0a000; }
#custom-blocker.shielded { background: #d02020; }
#custom-blocker.down { background: #707070; }
CSS
waybar -c "$fx_dir/waybar/config" -s "$fx_dir/waybar/style.css" >"$fx_dir/waybar.log" 2>&1 &
fx_track $!

last_class() { tail -n 1 "$fx_dir/bar.jsonl" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["class"])' 2>/dev/null; }
# The module's colour at the bar's left end, as "R,G,B" (0-255).
bar_color() {
    grim -g "0,0 400x30" "$fx_dir/bar.png" 2>/dev/null || return 1
    convert "$fx_dir/bar.png" -crop 1x1+4+15 -depth 8 -format '%[fx:int(255*r)],%[fx:int(255*g)],%[fx:int(255*b)]' info:
}
color_is() { [ "$(bar_color)" = "$1" ]; }

fx_wait 10 eval '[ -s "$fx_dir/bar.jsonl" ]' || fail "waybar did not start blockerctl's module (waybar.log: $(tail -n 5 "$fx_dir/waybar.log"))"
oe_ctl earn 20 pushups >/dev/null || fail "blockerctl earn failed"
fx_wait 5 eval '[ "$(last_class)" = ok ]' || fail "the module's class is $(last_class), not ok, after earning 1m"
fx_wait 5 color_is 31,157,85 || fail "the bar is not green (class ok) on screen: $(bar_color)"
mkdir -p docs
cp "$fx_dir/bar.png" docs/waybar-ok.png
fx_note "1. the bar shows $(tail -n 1 "$fx_dir/bar.jsonl") in green"

# 2. Counting down while foot is in front: several lines, decreasing.
fx_wait 5 eval '[ "$(grep -c "" "$fx_dir/bar.jsonl")" -ge 4 ]' || fail "the bar did not follow the balance: $(cat "$fx_dir/bar.jsonl")"
python3 - "$fx_dir/bar.jsonl" <<'PY' || fail "the bar's lines are not a countdown: $(cat "$fx_dir/bar.jsonl")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert all(set(l) == {"text", "tooltip", "class", "percentage"} for l in lines), lines
def seconds(text):  # "1m 05s" -> 65
    return sum(int(part[:-1]) * {"h": 3600, "m": 60, "s": 1}[part[-1]] for part in text.split())
left = [seconds(l["text"]) for l in lines if l["class"] == "ok"]
assert len(left) >= 3 and left == sorted(left, reverse=True) and left[0] > left[-1], left
PY
fx_note "2. the balance counts down in the bar"

# 3. A timed block: shielded, red, within 2 s; no polling means no line in between.
blocked=$(fx_now_ms)
oe_ctl block meter --for 1m >/dev/null || fail "blockerctl block failed"
fx_wait 2 eval '[ "$(last_class)" = shielded ]' || fail "the module's class is $(last_class), not shielded, 2 s after the block"
fx_wait 3 color_is 208,32,32 || fail "the bar did not turn red (class shielded) on screen: $(bar_color)"
cp "$fx_dir/bar.png" docs/waybar-shielded.png
fx_note "3. shield up: the bar is red after $(($(fx_now_ms) - blocked)) ms ($(tail -n 1 "$fx_dir/bar.jsonl"))"
# Shielded and covered, nothing is spent and blockerd signals nothing: the
# line stays put. (Uncovered, the time under the shield is charged: issue 20,
# row 2.) The cover hides the bar, so it comes after the screenshot, and goes.
oe_start_overlay
fx_wait 5 grep -qs "shown over blocker-meter" "$fx_dir/overlay.log" || fail "blocker-overlay did not cover blocker-meter"
fx_wait 5 eval '[ "$(oe_status "s[\"spending\"]")" = False ]' || fail "blockerd still spends under the cover: $(oe_ctl status)"
sleep 1
lines=$(grep -c "" "$fx_dir/bar.jsonl")
sleep 3
[ "$(grep -c "" "$fx_dir/bar.jsonl")" -eq "$lines" ] || fail "the module printed while nothing changed: $(tail -n 3 "$fx_dir/bar.jsonl")"
fx_stop "$oe_overlay_pid"
fx_note "3b. covered, nothing changes for 3 s: no new line (it follows signals, it does not poll)"

# 4. blockerd away and back.
oe_stop_blockerd
fx_wait 3 eval '[ "$(last_class)" = down ]' || fail "the class is $(last_class), not down, with blockerd stopped"
fx_wait 3 color_is 112,112,112 || fail "the bar did not turn grey with blockerd stopped: $(bar_color)"
oe_start_blockerd sway
fx_wait 5 eval '[ "$(last_class)" = shielded ]' || fail "the class is $(last_class), not shielded, after blockerd came back"
fx_note "4. blockerd stopped: class down (grey); back: shielded again"
# 5. A hostile title in front (the shield was over blocker-meter): the bar's new line names it.
title='a & <span size="99999">x</span>'
printf '#!/bin/sh\nexec foot --app-id=blocker-title --title=%s sleep infinity\n' "'$title'" >"$fx_dir/title-window.sh"
chmod 0755 "$fx_dir/title-window.sh"
swaymsg exec "$fx_dir/title-window.sh" >/dev/null
fx_wait 10 eval 'tail -n 1 "$fx_dir/bar.jsonl" | grep -qF "blocker-title"' \
    || fail "the bar did not name the window in front: $(tail -n 2 "$fx_dir/bar.jsonl")"
python3 - "$fx_dir/bar.jsonl" "$title" <<'PY' || fail "the tooltip carries the title as markup: $(tail -n 1 "$fx_dir/bar.jsonl")"
import json, sys, html
line = json.loads(open(sys.argv[1]).read().splitlines()[-1])
tooltip, title = line["tooltip"], sys.argv[2]
assert "<" not in tooltip and html.escape(title, quote=True).replace("&#x27;", "&apos;") in tooltip, tooltip
PY
fx_note "5. a window titled '$title': the tooltip waybar got carries it escaped"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s (screenshots: docs/waybar-ok.png, docs/waybar-shielded.png)"
