#!/usr/bin/env bash
# itest-overlay-x11.sh — blocker-overlay on X11, the whole chain on real
# servers: Xvfb + openbox, a private session bus, blockerd with the real
# probe (x11), blocker-overlay, and a metered xterm (class blocker-meter) in front.
#
#   1. with the balance at 0 the shield is up at start and the cover shows it
#      (from Status); it is a proper X11 cover: WM_CLASS blocker-overlay
#      (instance and class), fullscreen, above, sticky, out of the taskbar;
#   2. blockerd stopping takes the cover away (stopping must not block);
#      blockerd back on the bus brings it back (re-synced from Status); the
#      app leaving the front takes it away, coming back brings it back;
#   3. `blockerctl earn` lifts the shield and the cover goes;
#   4. spending the earned seconds in the xterm, the cover is on screen
#      (≥ 90% of the pixels changed) within 3 s of the balance reaching zero,
#      and opaque: not one pixel of the magenta xterm beneath shows through;
#   5. it holds the keyboard: `touch FILE` + Enter typed does not reach the
#      shell beneath, which stays the reported foreground;
#   6. reps typed + Enter earn, and the cover is gone within 3 s;
#   7. a timed block covers the app whatever the balance; unblocked, it goes;
#      the cover brings the exercises of a reload from blockerd (no config read).
# Also checks the unit file with systemd-analyze. Saves docs/overlay-x11.png.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init overlay-x11
started=$(fx_now_ms)
fx_need Xvfb openbox xterm xdotool xprop import compare identify dbus-daemon python3 systemd-analyze

oe_start_x11
fx_start_bus

typing=$fx_dir/typing
mkdir -m 0777 "$typing"
# A shell in a big magenta xterm, so the cover has a real app to hide and
# any of it showing through is easy to count.
(cd "$typing" && exec xterm -class blocker-meter -bg magenta -fg magenta -geometry 200x57+0+0 -e bash --norc --noprofile -i) \
    >"$fx_dir/xterm.log" 2>&1 &
fx_track $!
fx_wait 10 eval 'xdotool search --onlyvisible --class blocker-meter >/dev/null 2>&1' || fail "the xterm did not map"
xterm_window=$(xdotool search --onlyvisible --class blocker-meter | head -n 1)
xdotool windowactivate --sync "$xterm_window"

# pushups earn 3 s a rep.
oe_write_config 0.05
oe_start_blockerd x11
[ "$(oe_status 's["probe"]["name"], s["probe"]["ok"]')" = "x11 True" ] \
    || fail "blockerd's x11 probe is not working: $(oe_status 's["probe"]')"
oe_start_overlay

# A quarter-size screenshot: quick to take and compare, plenty for "how much changed".
shot() { import -window root -resize 25% "$1"; }
cover_shown() { xdotool search --onlyvisible --classname blocker-overlay >/dev/null 2>&1; }
cover_hidden() { ! cover_shown; }
foreground() { oe_status '(s["foreground"] or {}).get("app")'; }

# 1. The shield at start, the cover from Status.
fx_wait 5 oe_shield_active || fail "no shield with the balance at 0 and the metered xterm in front"
fx_wait 3 cover_shown || fail "the cover did not show for the shield that was up when it started"
cover=$(xdotool search --onlyvisible --classname blocker-overlay | head -n 1)
xprop -id "$cover" WM_CLASS | grep -qxF 'WM_CLASS(STRING) = "blocker-overlay", "blocker-overlay"' \
    || fail "the cover's WM_CLASS is not blocker-overlay/blocker-overlay: $(xprop -id "$cover" WM_CLASS)"
fx_wait 2 eval 'xprop -id "$cover" _NET_WM_DESKTOP | grep -q "= 4294967295"' \
    || fail "the cover is not sticky (on every desktop): $(xprop -id "$cover" _NET_WM_DESKTOP)"
state=$(xprop -id "$cover" _NET_WM_STATE)
for flag in FULLSCREEN ABOVE SKIP_TASKBAR; do
    grep -q "_NET_WM_STATE_$flag" <<<"$state" || fail "the cover lacks _NET_WM_STATE_$flag: $state"
done
geometry=$(xwininfo -id "$cover" | awk '/Width:/ {w=$2} /Height:/ {h=$2} END {print w "x" h}')
[ "$geometry" = 1280x800 ] || fail "the cover is $geometry, not the whole 1280x800 screen"
[ "$(foreground)" = blocker-meter ] || fail "with the cover up, the foreground is $(foreground), not the xterm"
fx_note "1. cover shown from Status at start: WM_CLASS, fullscreen, above, sticky, skip-taskbar ok"

# 2. blockerd stops: the cover goes; blockerd is back: the cover is back.
oe_stop_blockerd
fx_wait 2 cover_hidden || fail "the cover stayed up after blockerd stopped"
oe_start_blockerd x11
fx_wait 3 cover_shown || fail "the cover did not come back when blockerd restarted"
grep -q "re-syncing from Status" "$fx_dir/overlay.log" || fail "the overlay did not re-sync from Status after the restart"
fx_note "2. blockerd stopped: cover gone; restarted: cover back (Status re-sync)"

# 2b. The app leaves the front (another window takes the focus): the cover
# goes; back in front, the cover is back.
xterm -class blocker-free -geometry 80x24+100+100 >"$fx_dir/xterm-free.log" 2>&1 &
free_xterm=$!
fx_track $free_xterm
fx_wait 5 eval 'xdotool search --onlyvisible --class blocker-free >/dev/null 2>&1' || fail "the second xterm did not map"
xdotool windowactivate --sync "$(xdotool search --onlyvisible --class blocker-free | head -n 1)" 2>/dev/null || true
fx_wait 3 cover_hidden || fail "the cover stayed up after the metered app left the front ($(foreground) is in front)"
fx_stop $free_xterm
xdotool windowactivate --sync "$xterm_window"
fx_wait 3 cover_shown || fail "the cover did not come back with the metered xterm in front again"
fx_note "2b. app left the front: cover gone; back in front: cover back"

# 3. blockerctl earn lifts the shield: 2 pushups = 6 s.
oe_ctl earn 2 pushups >/dev/null || fail "blockerctl earn failed"
fx_wait 2 cover_hidden || fail "the cover stayed up after the shield lifted (blockerctl earn)"
# Control: uncovered, typing does reach the shell (else step 5 would prove nothing).
xdotool type --delay 5 "touch $typing/control"
xdotool key Return
fx_wait 3 test -e "$typing/control" || fail "typing did not reach the uncovered xterm; the test's typing is broken"
sleep 0.3
shot "$fx_dir/before.png"
fx_note "3. blockerctl earn: cover gone; typing reaches the uncovered shell"

# 4. The balance runs out in the xterm: the cover within 3 s of zero.
oe_expect_cover_after_zero shot
sleep 0.3
mkdir -p docs
import -window root -define png:exclude-chunks=date,time "$fx_dir/cover.png"
cp "$fx_dir/cover.png" docs/overlay-x11.png
oe_expect_opaque "$fx_dir/cover.png"

# 5. Keys typed over the cover do not reach the shell beneath.
xdotool type --delay 5 "touch $typing/typed"
xdotool key Return
sleep 1
[ ! -e "$typing/typed" ] || fail "keys typed over the cover reached the shell beneath ($typing/typed exists)"
cover_shown || fail "the cover went away while typing into it"
[ "$(foreground)" = blocker-meter ] || fail "the foreground is $(foreground) with the cover up, not the app beneath"
oe_shield_active || fail "the shield is down though nothing was earned"
fx_note "5. typing over the cover: nothing reached the shell; the xterm stays the foreground"

# 6. Reps + Enter earn; the cover goes within 3 s.
type_reps() { xdotool type 2 && xdotool key Return; }
oe_expect_reps_earn shot type_reps

# 7. A hard block: covered whatever the balance, no form; lifted, gone.
# Before it, [earn] gains an exercise and blockerd reloads: the overlay asks
# blockerd (not the file) for the exercises when the cover shows.
sed -i 's/^\[earn\]$/[earn]\nlunges = 1/' "$fx_dir/blocker.toml"
oe_ctl reload >/dev/null || fail "blockerctl reload failed"
oe_ctl block blocker-meter --for 5m >/dev/null || fail "blockerctl block failed"
fx_wait 3 grep -q "exercises from blockerd: lunges 1m 00s, pushups 3s, squats 30s" "$fx_dir/overlay.log" \
    || fail "the overlay did not take the reloaded exercises from blockerd: $(grep exercises "$fx_dir/overlay.log")"
fx_wait 2 cover_shown || fail "the cover did not show for a timed block"
fx_wait 2 grep -q "shown over blocker-meter (timed-block)" "$fx_dir/overlay.log" || fail "the cover did not show the timed block"
oe_ctl unblock blocker-meter >/dev/null || fail "blockerctl unblock failed"
fx_wait 2 cover_hidden || fail "the cover stayed up after the timed block was lifted"
fx_note "7. timed block: covered with a positive balance, reloaded exercises from blockerd; unblocked: gone"

# The unit, as make install renders it.
scripts/render-units.sh "$bin" "$fx_dir" "$fx_dir/units" blocker-overlay.service
verify=$(XDG_RUNTIME_DIR=$fx_dir/runtime systemd-analyze --user verify "$fx_dir/units/blocker-overlay.service" 2>&1) \
    || fail "systemd-analyze rejects blocker-overlay.service: $verify"
[ -z "$verify" ] || fail "systemd-analyze complains about blocker-overlay.service: $verify"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s (screenshot: docs/overlay-x11.png)"
