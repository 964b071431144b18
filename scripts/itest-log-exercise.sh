#!/usr/bin/env bash
# itest-log-exercise.sh — the "Log exercise" desktop entry and the window it
# opens (`blocker-overlay --earn`), on real servers.
#
#   0. data/io.github.blockerd.LogExercise.desktop passes desktop-file-validate
#      and agrees with the window (Name, Icon, StartupWMClass); rendered for a
#      BINDIR with a space it still validates and GLib (`gio launch`) runs the
#      program there with --earn; `make install-files` puts it in
#      PREFIX/share/applications with Exec= at the installed program, and
#      `make uninstall` removes it;
#   then on Xvfb + openbox (x11 probe) and on a headless sway (sway probe), each
#   with a private session bus, blockerd and the cover service running:
#   1. it is an ordinary window: X11: managed (framed), not override-redirect,
#      type NORMAL, not fullscreen or above, _NET_WM_NAME "Log exercise",
#      WM_CLASS io.github.blockerd.LogExercise, small; sway: an xdg-shell
#      toplevel in the tree (not a layer surface), floating, small, named
#      "Log exercise"; both: blockerd reports it as the window in front (the
#      probes do not take it for the cover);
#   2. reps typed + Enter (xdotool / wtype) credit the ledger (blockerctl
#      status --json balance), and it says "Earned … — balance …";
#   3. X11: the Earn button clicked credits again; sway: a second entry with Enter;
#   4. reps out of range are refused in words, nothing credited;
#   5. blockerd stopped: the window says how to start it, nothing credited;
#      blockerd back: the next Enter credits (it asks Status again); on sway
#      it is also opened before blockerd runs, and says so at once;
#   6. X11: the chosen exercise gone after a reload: blockerd's refusal is
#      shown, the window takes the new list, the next Enter credits the first;
#   7. Escape (X11) / closing it (sway) ends it with status 0, while the cover
#      service stays running.
# Saves docs/log-exercise-x11.png and docs/log-exercise-sway.png.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
# shellcheck source=lib/overlay-env.sh
source "$(dirname "$0")/lib/overlay-env.sh"
oe_init log-exercise
started=$(fx_now_ms)
fx_need desktop-file-validate gio make Xvfb openbox xdotool xprop xwininfo import convert sway swaymsg grim wtype \
    setpriv dbus-daemon python3

app_id=io.github.blockerd.LogExercise
entry=data/$app_id.desktop
# pushups earn 30 s a rep, squats 30 s too (oe_write_config's second exercise).
per_rep_ms=30000

# --- 0. the desktop entry ------------------------------------------------------

out=$(desktop-file-validate "$entry" 2>&1) || fail "desktop-file-validate rejects $entry: $out"
[ -z "$out" ] || fail "desktop-file-validate complains about $entry: $out"
key() { sed -n "s/^$1=//p" "$2"; }
[ "$(key Name "$entry")" = "Log exercise" ] || fail "$entry: Name= is not \"Log exercise\""
[ "$(key Exec "$entry")" = "blocker-overlay --earn" ] || fail "$entry: Exec= is not \"blocker-overlay --earn\""
[ "$(key StartupWMClass "$entry")" = "$app_id" ] || fail "$entry: StartupWMClass= is not the window's $app_id"
[ "$(key Icon "$entry")" = appointment-soon ] || fail "$entry: Icon= is not the window's icon (appointment-soon)"

# Rendered for a BINDIR with a space: still valid, and GLib runs what it names.
spaced="$fx_dir/my bin"
mkdir -p "$spaced"
printf '#!/bin/sh\nprintf "%%s\\n" "$0" "$@" >"%s"\n' "$fx_dir/launched" >"$spaced/blocker-overlay"
chmod +x "$spaced/blocker-overlay"
scripts/render-desktop.sh "$spaced" "$fx_dir/apps" "$app_id.desktop"
out=$(desktop-file-validate "$fx_dir/apps/$app_id.desktop" 2>&1) || fail "the rendered entry is invalid: $out"
[ -z "$out" ] || fail "desktop-file-validate complains about the rendered entry: $out"
gio launch "$fx_dir/apps/$app_id.desktop" || fail "gio launch could not start the rendered entry"
fx_wait 5 test -s "$fx_dir/launched" || fail "gio launch did not run $spaced/blocker-overlay"
[ "$(cat "$fx_dir/launched")" = "$spaced/blocker-overlay"$'\n'--earn ] \
    || fail "gio launch ran something else: $(cat "$fx_dir/launched")"

# make install-files / uninstall, everything under a scratch HOME and PREFIX.
home=$fx_dir/home
mkdir -p "$home"
# The KWin script is copied, not given to kpackagetool: that one also looks in
# the system's data dirs, where a package installed meanwhile would confuse it.
install_env=(env HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share"
    KPACKAGETOOL=none KWRITECONFIG=none)
"${install_env[@]}" make --no-print-directory install-files BINSRC="$bin" PREFIX="$home/prefix" GNOME_EXTENSION=true \
    >"$fx_dir/install.log" 2>&1 || fail "make install-files failed: $(tail -n 5 "$fx_dir/install.log")"
installed=$home/prefix/share/applications/$app_id.desktop
[ "$(key Exec "$installed")" = "$home/prefix/bin/blocker-overlay --earn" ] \
    || fail "the installed entry's Exec= is not the installed program: $(key Exec "$installed")"
desktop-file-validate "$installed" || fail "the installed entry is invalid"
"${install_env[@]}" make --no-print-directory uninstall PREFIX="$home/prefix" GNOME_EXTENSION=true \
    >>"$fx_dir/install.log" 2>&1 || fail "make uninstall failed: $(tail -n 5 "$fx_dir/install.log")"
[ ! -e "$installed" ] || fail "make uninstall left $installed"
fx_note "0. desktop entry: valid, matches the window; rendered Exec= runs through gio; make install-files/uninstall"

# --- shared by both displays -------------------------------------------------

earn_pid=
start_earn() { # LOG
    "$bin/blocker-overlay" --earn > >(fx_stamp >>"$fx_dir/$1") 2>&1 &
    earn_pid=$!
    fx_track $earn_pid
}
balance() { oe_status 's["balance_ms"]'; }
# expect_said LOG TEXT — the window said TEXT (it logs each line it shows).
expect_said() {
    fx_wait 3 grep -qF "says: $2" "$fx_dir/$1" || fail "the window did not say \"$2\"; it said: $(grep -F 'says:' "$fx_dir/$1" | tail -n 3)"
}
expect_balance() { # MS WHAT
    local want=$1
    fx_wait 3 eval '[ "$(balance)" = "$want" ]' || fail "$2: the balance is $(balance) ms, not $want"
}
front_app() { oe_status '(s["foreground"] or {}).get("app")'; }
# expect_exit PID WHAT — PID ends within 3 s with status 0.
expect_exit() {
    local pid=$1 status=0
    fx_wait 3 eval '! fx_alive "$pid"' || fail "$2: blocker-overlay --earn is still running"
    wait "$pid" || status=$?
    [ "$status" -eq 0 ] || fail "$2: blocker-overlay --earn exited with $status"
    fx_stop "$pid"
}

# --- X11 ------------------------------------------------------------------------

oe_start_x11
fx_start_bus
oe_write_config 0.5
oe_start_blockerd x11
oe_start_overlay
cover_pid=$oe_overlay_pid

start_earn earn-x11.log
fx_wait 10 eval 'xdotool search --onlyvisible --classname "$app_id" >/dev/null 2>&1' || fail "the window did not map on X11"
window=$(xdotool search --onlyvisible --classname "$app_id" | head -n 1)
xprop -id "$window" WM_CLASS | grep -qxF "WM_CLASS(STRING) = \"$app_id\", \"$app_id\"" \
    || fail "WM_CLASS is not $app_id: $(xprop -id "$window" WM_CLASS)"
xprop -id "$window" _NET_WM_NAME | grep -qxF '_NET_WM_NAME(UTF8_STRING) = "Log exercise"' \
    || fail "_NET_WM_NAME is not \"Log exercise\": $(xprop -id "$window" _NET_WM_NAME)"
xprop -id "$window" _NET_WM_WINDOW_TYPE | grep -q '= _NET_WM_WINDOW_TYPE_NORMAL$' \
    || fail "the window is not of type NORMAL: $(xprop -id "$window" _NET_WM_WINDOW_TYPE)"
xwininfo -id "$window" | grep -q 'Override Redirect State: no' || fail "the window is override-redirect"
# openbox frames what it manages; a cover-like window would be unframed.
fx_wait 2 eval 'xprop -id "$window" _NET_FRAME_EXTENTS | grep -q "= [1-9]"' \
    || fail "openbox does not frame the window: $(xprop -id "$window" _NET_FRAME_EXTENTS)"
state=$(xprop -id "$window" _NET_WM_STATE)
for flag in FULLSCREEN ABOVE SKIP_TASKBAR STICKY; do
    ! grep -q "_NET_WM_STATE_$flag" <<<"$state" || fail "the window has _NET_WM_STATE_$flag: $state"
done
read -r width height < <(xwininfo -id "$window" | awk '/Width:/ {w=$2} /Height:/ {h=$2} END {print w, h}')
[ "$width" -le 700 ] && [ "$height" -le 400 ] || fail "the window is ${width}x$height, not a small one on the 1280x800 screen"
fx_wait 3 eval '[ "$(front_app)" = "$app_id" ]' \
    || fail "blockerd does not report the window in front: $(oe_status 's["foreground"]')"
fx_note "1. X11: ordinary window ${width}x$height (framed, NORMAL, not fullscreen/above), \"Log exercise\", in front as itself"

# 2. reps + Enter credit the ledger.
expect_balance 0 "at start"
xdotool windowactivate --sync "$window"
xdotool type 30
xdotool key Return
expect_balance $((30 * per_rep_ms)) "30 pushups + Enter"
expect_said earn-x11.log "Earned 15m 00s — balance 15m 00s"
fx_note "2. X11: 30 + Enter: balance $(balance) ms"

# 3. The Earn button, clicked where its colour (#7aa2f7) is on the window.
import -window "$window" "$fx_dir/window.png"
read -r bx by < <(convert "$fx_dir/window.png" txt:- | awk -F'[,: ]+' '/#7AA2F7/ {x += $1; y += $2; n++} END {if (n) print int(x / n), int(y / n)}')
[ -n "${bx:-}" ] || fail "no Earn button (#7aa2f7) on the window's picture"
xdotool type 20
xdotool mousemove --window "$window" "$bx" "$by" click 1
expect_balance $((50 * per_rep_ms)) "20 pushups + a click on Earn"
expect_said earn-x11.log "Earned 10m 00s — balance 25m 00s"
# Off the button, so the picture shows it at rest.
xdotool mousemove 0 0
sleep 0.3
# The picture for the README: the window with openbox's frame, after that entry.
read -r left right top bottom < <(xprop -id "$window" _NET_FRAME_EXTENTS | sed 's/.*= //; s/,//g')
read -r x y < <(xwininfo -id "$window" | awk '/Absolute upper-left X:/ {x=$4} /Absolute upper-left Y:/ {y=$4} END {print x, y}')
mkdir -p docs
import -window root -crop "$((width + left + right))x$((height + top + bottom))+$((x - left))+$((y - top))" \
    -define png:exclude-chunks=date,time "$fx_dir/shot.png"
cp "$fx_dir/shot.png" docs/log-exercise-x11.png
fx_note "3. X11: clicked Earn at +$bx+$by: balance $(balance) ms (screenshot docs/log-exercise-x11.png)"

# 4. Out of range: refused in words, nothing credited.
xdotool type 1001
xdotool key Return
expect_said earn-x11.log "Reps go from 1 to 1000"
expect_balance $((50 * per_rep_ms)) "1001 reps"
fx_note "4. X11: 1001 reps refused in words"

# 5. blockerd stopped: how to start it; back: the next Enter credits.
oe_stop_blockerd
xdotool key ctrl+a
xdotool type 2
xdotool key Return
expect_said earn-x11.log "blockerd is not running — start it with: systemctl --user start blockerd"
oe_start_blockerd x11
expect_balance $((50 * per_rep_ms)) "with blockerd stopped"
xdotool windowactivate --sync "$window"
xdotool key Return
expect_balance $((52 * per_rep_ms)) "2 pushups once blockerd was back"
fx_note "5. X11: blockerd stopped: said how to start it; back: credited"

# 6. squats chosen (Shift+Tab to the menu, Down), then a reload drops them.
xdotool key shift+Tab Down Tab
xdotool key ctrl+a
xdotool type 3
sed -i 's/^squats = .*/lunges = 1/' "$fx_dir/blocker.toml"
oe_ctl reload >/dev/null || fail "blockerctl reload failed"
xdotool key Return
expect_said earn-x11.log "unknown exercise"
grep -F "says: unknown exercise" "$fx_dir/earn-x11.log" | grep -q squats || fail "the refusal does not name squats"
expect_balance $((52 * per_rep_ms)) "3 squats after squats were dropped"
fx_wait 3 grep -qF "exercises from blockerd: lunges, pushups" "$fx_dir/earn-x11.log" \
    || fail "the window did not take the reloaded exercises: $(grep exercises "$fx_dir/earn-x11.log")"
xdotool key Return
expect_balance $((52 * per_rep_ms + 3 * 60000)) "3 lunges (the first listed) after the refusal"
fx_note "6. X11: a dropped exercise: blockerd's refusal shown, new list taken, then credited"

# 7. Escape ends it; the cover service stays.
xdotool key Escape
expect_exit "$earn_pid" "Escape"
fx_alive "$cover_pid" || fail "the cover service stopped along with the window"
fx_note "7. X11: Escape closed it (status 0); the cover service still runs"
fx_stop "$cover_pid"
oe_stop_blockerd
fx_stop_all
unset DISPLAY GDK_BACKEND DBUS_SESSION_BUS_ADDRESS
export XDG_RUNTIME_DIR=$fx_dir/runtime
rm -rf "$fx_dir/state" && mkdir -m 0700 "$fx_dir/state"
for log in blockerd overlay; do mv "$fx_dir/$log.log" "$fx_dir/$log-x11.log"; done

# --- sway ---------------------------------------------------------------------

fx_start_bus
oe_start_sway 1
oe_write_config 0.5
oe_start_overlay
cover_pid=$oe_overlay_pid
# wtype's virtual keyboard comes and goes with each call: pause after it
# appears and before it goes, so no key is lost on the way.
type_keys() { wtype -s 300 "$@" -s 300; }

start_earn earn-sway.log
node() { # the window's node in sway's tree, as JSON, or nothing
    swaymsg -t get_tree | python3 -c '
import json, sys
def walk(n):
    if n.get("app_id") == sys.argv[1]:
        return n
    for c in n.get("nodes", []) + n.get("floating_nodes", []):
        f = walk(c)
        if f: return f
found = walk(json.load(sys.stdin))
if found: print(json.dumps(found))' "$app_id"
}
fx_wait 10 eval '[ -n "$(node)" ]' || fail "the window is not in sway's tree"
# Opened before blockerd runs: it says how to start it, then works once it does.
fx_wait 3 grep -qF "hint: blockerd is not running — start it with: systemctl --user start blockerd" "$fx_dir/earn-sway.log" \
    || fail "opened without blockerd, the window does not say how to start it: $(grep hint "$fx_dir/earn-sway.log")"
oe_start_blockerd sway
field() { node | python3 -c "import json, sys; n = json.load(sys.stdin); print(*[$1])"; }
[ "$(field 'n["type"], n["shell"], n["name"]')" = "floating_con xdg_shell Log exercise" ] \
    || fail "not a floating xdg-shell toplevel named \"Log exercise\": $(field 'n["type"], n["shell"], n["name"]')"
read -r rx ry rw rh < <(field 'n["rect"][k] for k in ("x", "y", "width", "height")')
[ "$rw" -le 700 ] && [ "$rh" -le 400 ] || fail "the window is ${rw}x$rh, not a small one on the 1280x720 output"
fx_wait 3 eval '[ "$(front_app)" = "$app_id" ]' \
    || fail "blockerd does not report the window in front: $(oe_status 's["foreground"]')"
fx_note "1. sway: a floating xdg-shell toplevel ${rw}x$rh, \"Log exercise\", in front as itself"

# 2. and 3. reps + Enter, twice.
type_keys 30 -k Return
expect_balance $((30 * per_rep_ms)) "30 pushups + Enter"
expect_said earn-sway.log "Earned 15m 00s — balance 15m 00s"
type_keys 20 -k Return
expect_balance $((50 * per_rep_ms)) "20 pushups + Enter"
expect_said earn-sway.log "Earned 10m 00s — balance 25m 00s"
# With sway's title bar (deco_rect, above rect), at its size now: it follows
# its content, which grew when blockerd's exercises came.
read -r rx ry rw rh < <(field 'n["rect"][k] for k in ("x", "y", "width", "height")')
read -r ty th < <(field 'n["deco_rect"]["y"], n["deco_rect"]["height"]')
# Hold a keyboard while taking the picture (wtype's lasts 2.5 s), so the
# field shows its focus as on a real seat.
wtype -s 2500 -k Shift_L &
keyboard=$!
fx_track $keyboard
sleep 0.8
grim -g "$rx,$ty ${rw}x$((rh + th))" "$fx_dir/sway.png"
cp "$fx_dir/sway.png" docs/log-exercise-sway.png
fx_stop "$keyboard"
fx_note "2-3. sway: two entries with Enter: balance $(balance) ms (screenshot docs/log-exercise-sway.png)"

# 4. Out of range.
type_keys 0 -k Return
expect_said earn-sway.log "Reps go from 1 to 1000"
expect_balance $((50 * per_rep_ms)) "0 reps"
fx_note "4. sway: 0 reps refused in words"

# 5. blockerd stopped, then back.
oe_stop_blockerd
type_keys -M ctrl a -m ctrl 4 -k Return
expect_said earn-sway.log "blockerd is not running — start it with: systemctl --user start blockerd"
oe_start_blockerd sway
expect_balance $((50 * per_rep_ms)) "with blockerd stopped"
type_keys -k Return
expect_balance $((54 * per_rep_ms)) "4 pushups once blockerd was back"
fx_note "5. sway: blockerd stopped: said how to start it; back: credited"

# 7. Closed by the compositor (as the title bar's button does): it ends; the cover stays.
swaymsg "[app_id=\"$app_id\"] kill" >/dev/null
expect_exit "$earn_pid" "closing the window"
fx_alive "$cover_pid" || fail "the cover service stopped along with the window"
fx_note "7. sway: closed (status 0); the cover service still runs"

fx_note "pass in $((($(fx_now_ms) - started) / 1000)) s (screenshots: docs/log-exercise-x11.png, docs/log-exercise-sway.png)"
