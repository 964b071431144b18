#!/usr/bin/env bash
# itest-overlay-sway.sh — blocker-overlay on Wayland (wlroots), the whole chain
# on real servers: a headless sway with two outputs (run as the unprivileged
# user blocker-sway, since sway refuses root), a private session bus, blockerd
# with the sway probe, blocker-overlay (a gtk-layer-shell OVERLAY surface per
# output), and a metered foot (app id blocker-meter) running a shell.
#
#   1. with the balance at 0 the shield is up at start and the cover shows it;
#   2. blockerd stopping takes the cover away; back, it re-syncs from Status;
#      the app leaving the front takes it away, coming back brings it back;
#   3. `blockerctl earn` lifts the shield and the cover goes;
#   4. spending the earned seconds in foot, both outputs are covered (≥ 90%
#      of each one's pixels changed) within 3 s of the balance reaching zero,
#      and opaque: not one pixel of the magenta foot beneath shows through;
#   5. keys typed (wtype) go to the cover: `touch FILE` + Enter does not reach
#      the shell beneath, which stays the reported foreground;
#   6. reps typed + Enter earn, and the cover is gone within 3 s.
# Saves the first output as docs/overlay-sway.png.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init overlay-sway
started=$(fx_now_ms)
fx_need sway swaymsg foot grim wtype setpriv compare identify convert dbus-daemon python3

fx_start_bus
oe_start_sway 2

typing=$fx_dir/typing
mkdir -m 0777 "$typing"
# Magenta on magenta: any of it showing through the cover is easy to count.
swaymsg exec "cd $typing && foot --app-id=blocker-meter -o colors.background=ff00ff -o colors.foreground=ff00ff sh" >/dev/null
meter_focused() { swaymsg -t get_tree | grep -q '"app_id": "blocker-meter"'; }
fx_wait 10 meter_focused || fail "foot did not map"

# pushups earn 3 s a rep.
oe_write_config 0.05
oe_start_blockerd sway
[ "$(oe_status 's["probe"]["name"], s["probe"]["ok"]')" = "sway True" ] \
    || fail "blockerd's sway probe is not working: $(oe_status 's["probe"]')"
oe_start_overlay

shown_count() { oe_count overlay.log "shown over blocker-meter"; }
hidden_count() { oe_count overlay.log "blocker-overlay: hidden"; }
foreground() { oe_status '(s["foreground"] or {}).get("app")'; }
# A quarter-size screenshot: quick to take and compare, plenty for "how much changed".
shot() { grim -s 0.25 "$1"; }
# The percentage of OUTPUT's pixels (1 or 2, side by side) that differ between two layout shots.
output_diff() { # A B OUTPUT
    convert "$1" -crop "320x180+$((($3 - 1) * 320))+0" +repage "$fx_dir/a.png"
    convert "$2" -crop "320x180+$((($3 - 1) * 320))+0" +repage "$fx_dir/b.png"
    fx_diff_percent "$fx_dir/a.png" "$fx_dir/b.png"
}
# wtype's virtual keyboard comes and goes with each call: pause after it
# appears and before it goes, so no key is lost on the way.
type_keys() { wtype -s 300 "$@" -s 300; }

# 1. The shield at start, the cover from Status.
fx_wait 5 oe_shield_active || fail "no shield with the balance at 0 and the metered foot in front"
fx_wait 3 eval '[ "$(shown_count)" -ge 1 ]' || fail "the cover did not show for the shield that was up when it started"
grep -q "covering 2 monitor(s) on Wayland with layer-shell" "$fx_dir/overlay.log" \
    || fail "the overlay does not cover both outputs with layer-shell: $(grep covering "$fx_dir/overlay.log")"
[ "$(foreground)" = blocker-meter ] || fail "with the cover up, the foreground is $(foreground), not foot"
# Headless sway has no keyboard until wtype makes one: hold one while taking
# the picture, so it shows the reps field with the focus, as on a real seat.
wtype -s 1200 -k Shift_L &
keyboard=$!
fx_track $keyboard
sleep 0.6
mkdir -p docs
grim -o HEADLESS-1 "$fx_dir/cover.png"
cp "$fx_dir/cover.png" docs/overlay-sway.png
fx_stop "$keyboard"
fx_note "1. cover shown from Status at start, a layer-shell surface on each of 2 outputs"

# 2. blockerd stops: the cover goes; blockerd is back: the cover is back.
oe_stop_blockerd
fx_wait 2 eval '[ "$(hidden_count)" -ge 1 ]' || fail "the cover stayed up after blockerd stopped"
oe_start_blockerd sway
fx_wait 3 eval '[ "$(shown_count)" -ge 2 ]' || fail "the cover did not come back when blockerd restarted"
grep -q "re-syncing from Status" "$fx_dir/overlay.log" || fail "the overlay did not re-sync from Status after the restart"
fx_note "2. blockerd stopped: cover gone; restarted: cover back (Status re-sync)"

# 2b. The app leaves the front (a new window takes the focus): the cover
# goes; the new window closed, foot is in front again and so is the cover.
swaymsg exec "foot --app-id=blocker-free sh" >/dev/null
fx_wait 5 eval '[ "$(hidden_count)" -ge 2 ]' \
    || fail "the cover stayed up after the metered app left the front ($(foreground) is in front)"
swaymsg '[app_id="blocker-free"] kill' >/dev/null
fx_wait 5 eval '[ "$(shown_count)" -ge 3 ]' || fail "the cover did not come back with foot in front again"
fx_note "2b. app left the front: cover gone; back in front: cover back"

# 3. blockerctl earn lifts the shield: 2 pushups = 6 s.
oe_ctl earn 2 pushups >/dev/null || fail "blockerctl earn failed"
fx_wait 2 eval '[ "$(hidden_count)" -ge 3 ]' || fail "the cover stayed up after the shield lifted (blockerctl earn)"
# Control: uncovered, typing does reach the shell (else step 5 would prove nothing).
type_keys "touch $typing/control; clear" -k Return
fx_wait 3 test -e "$typing/control" || fail "typing did not reach the uncovered foot; the test's typing is broken"
sleep 0.3
shot "$fx_dir/before.png"
fx_note "3. blockerctl earn: cover gone; typing reaches the uncovered shell"

# 4. The balance runs out in foot: both outputs covered within 3 s of zero.
oe_expect_cover_after_zero shot
for output in 1 2; do
    changed=$(output_diff "$fx_dir/before.png" "$fx_dir/shot.png" $output)
    [ "$changed" -ge 90 ] || fail "output $output is not covered (only $changed% of it changed)"
done
grim -o HEADLESS-1 "$fx_dir/cover-full.png"
oe_expect_opaque "$fx_dir/cover-full.png"

# 5. Keys typed over the cover do not reach the shell beneath.
type_keys "touch $typing/typed" -k Return
sleep 1
[ ! -e "$typing/typed" ] || fail "keys typed over the cover reached the shell beneath ($typing/typed exists)"
[ "$(hidden_count)" -eq 3 ] || fail "the cover went away while typing into it"
[ "$(foreground)" = blocker-meter ] || fail "the foreground is $(foreground) with the cover up, not the app beneath"
oe_shield_active || fail "the shield is down though nothing was earned"
fx_note "5. typing over the cover: nothing reached the shell; foot stays the foreground"

# 6. Reps + Enter earn; the cover goes within 3 s (the Enter went out 300 ms
# before type_keys returns: wtype's closing pause).
type_reps() { type_keys 2 -k Return; }
oe_expect_reps_earn shot type_reps 300

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s (screenshot: docs/overlay-sway.png)"
