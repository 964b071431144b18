#!/usr/bin/env bash
# itest-overlay-x11-composited.sh — blocker-overlay's cover is opaque on an X11
# desktop with a compositor, where a window with an alpha channel really is
# blended over what is beneath: Xvfb + openbox + picom, a private session bus,
# blockerd with the x11 probe and the balance at 0, a magenta xterm (class
# blocker-meter) in front.
#
#   1. picom composites: the xterm at 50% _NET_WM_WINDOW_OPACITY reads as a
#      blend, not as magenta (else step 3 would prove nothing);
#   2. the cover shows for the shield that is up at start, in a 24-bit
#      window (no alpha channel for a compositor to blend);
#   3. opaque: the full-size screenshot of the cover has not one pixel
#      tinted by the magenta xterm beneath it.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init overlay-x11-composited
started=$(fx_now_ms)
fx_need Xvfb openbox picom xterm xdotool xprop xwininfo import convert compare identify dbus-daemon python3

oe_start_x11
fx_start_bus
# xrender: Xvfb has no GL. No config file: picom's defaults, no shadows or fading.
picom --backend xrender --config /dev/null >"$fx_dir/picom.log" 2>&1 &
fx_track $!
fx_wait 10 eval 'xprop -root _NET_SUPPORTING_WM_CHECK >/dev/null 2>&1' || fail "openbox is not managing $DISPLAY"

xterm -class blocker-meter -bg magenta -fg magenta -geometry 200x57+0+0 >"$fx_dir/xterm.log" 2>&1 &
fx_track $!
fx_wait 10 eval 'xdotool search --onlyvisible --class blocker-meter >/dev/null 2>&1' || fail "the xterm did not map"
xterm_window=$(xdotool search --onlyvisible --class blocker-meter | head -n 1)
xdotool windowactivate --sync "$xterm_window"

# Pixels within 10% of pure magenta.
pure_magenta() { convert "$1" -fuzz 10% -fill black +opaque magenta -fill white -opaque magenta -format '%[fx:int(mean*w*h+0.5)]' info:; }
shot() { import -window root -resize 25% "$1"; }

# 1. The compositor blends: half-transparent, the xterm is no longer magenta.
xprop -id "$xterm_window" -f _NET_WM_WINDOW_OPACITY 32c -set _NET_WM_WINDOW_OPACITY 0x7fffffff
blended() { shot "$fx_dir/blend.png"; [ "$(pure_magenta "$fx_dir/blend.png")" -lt 100 ]; }
fx_wait 10 blended || fail "picom does not composite: a 50%-opaque magenta xterm still shows $(pure_magenta "$fx_dir/blend.png") magenta pixels"
[ "$(fx_magenta_tinted "$fx_dir/blend.png")" -ge 50000 ] || fail "the blended xterm is not on screen ($(fx_magenta_tinted "$fx_dir/blend.png") tinted pixels)"
xprop -id "$xterm_window" -remove _NET_WM_WINDOW_OPACITY
solid() { shot "$fx_dir/before.png"; [ "$(pure_magenta "$fx_dir/before.png")" -ge 50000 ]; }
fx_wait 10 solid || fail "the xterm did not come back opaque after its opacity was removed"
fx_note "1. picom composites: a 50% xterm blends ($(pure_magenta "$fx_dir/blend.png") pure magenta pixels), at 100% it is magenta again"

# 2. The shield is up at start (balance 0): the cover shows, in a 24-bit window.
oe_write_config 0.05
oe_start_blockerd x11
oe_start_overlay
fx_wait 5 eval 'xdotool search --onlyvisible --classname blocker-overlay >/dev/null 2>&1' || fail "the cover did not show"
cover=$(xdotool search --onlyvisible --classname blocker-overlay | head -n 1)
depth=$(xwininfo -id "$cover" | awk '/Depth:/ {print $2}')
[ "$depth" = 24 ] || fail "the cover's window has depth $depth, not 24: a compositor blends it with what is beneath"
oe_screen_until shot "$fx_dir/before.png" ge 90 5000 >/dev/null || fail "the cover did not reach the screen"
fx_note "2. cover shown for the shield at start, depth $depth"

# 3. Opaque, full size.
sleep 0.3
import -window root "$fx_dir/cover.png"
oe_expect_opaque "$fx_dir/cover.png"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s"
