#!/usr/bin/env bash
# itest-gnome.sh — blocker on a real GNOME Shell 43 (headless, Wayland), the
# whole chain: blocker's extension installed by `make install-files` as the
# unprivileged user blocker-gnome, blockerd with the gnome probe on the shell's
# session bus, gtk3-demo and a metered foot (app id blocker-meter).
# (scripts/lib/gnome-env.sh says how the shell runs.)
#
#   1. the shell loads the extension `make install-files` installed and enabled;
#   2. blockerd started after the windows hears the state at once (the
#      extension reports when io.github.blockerd.Focus appears); `blockerctl
#      doctor` beside it has no failing probe line;
#   3. focus switches and a title change reach `blockerctl status` as they
#      happen (Alt+Tab uncovered does switch: the control for 5);
#   4. blockerd charges the metered foot; at zero the extension's cover is up,
#      opaque (no pixel of foot's magenta shows), screenshot docs/cover-gnome.png;
#   5. Alt+Tab, Super+Tab, Alt+Escape and Super pressed while covered change
#      neither the focus nor the cover nor the screen;
#   5b. locked while covered: reported, the cover gives way to the lock
#      screen and comes back after the unlock;
#   6. blocker-overlay stays hidden while the extension covers (it owns
#      io.github.blockerd.Cover) and says why; with the extension disabled it
#      covers; enabled again, the extension re-syncs from Status;
#   7. 0 reps is refused in the form; 2 reps + Enter earn, and the cover goes;
#   8. lock and unlock are reported, nothing is charged while locked;
#   8b. with [pause], the extension draws the pause: nothing charged, Escape
#      is "Not now" (foot minimized), Enter after the countdown "Open";
#   8c. with [pass], a block's cover offers the pass; its button lifts the block;
#   9. `make uninstall` removes the extension and takes it out of enabled-extensions.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
# shellcheck source=lib/gnome-env.sh
source scripts/lib/gnome-env.sh
fx_begin itest-gnome
fx_fail_on_error
started=$SECONDS
ge_init
fx_need gtk3-demo foot compare identify convert

# 1. Installed by make install-files, loaded by the shell.
ge_install
grep -q "log out and back in" "$fx_dir/install.log" || fail "install-files did not say a log-out is needed: $(cat "$fx_dir/install.log")"
grep -q "enabled in org.gnome.shell enabled-extensions" "$fx_dir/install.log" \
    || fail "install-files did not enable the extension: $(cat "$fx_dir/install.log")"
ext=$ge_home/.local/share/gnome-shell/extensions/blocker@blockerd.github.io
for f in metadata.json extension.js core.js stylesheet.css; do
    [ -f "$ext/$f" ] || fail "make install-files did not install $ext/$f"
done
grep -q '"43"' "$ext/metadata.json" || fail "the installed metadata.json is not the GNOME 43 one"
ge_start_shell
state=$(ge_extension_state blocker@blockerd.github.io)
[ "$state" = 1.0 ] || fail "GNOME Shell has blocker's extension in state $state, not 1 (enabled): $(grep -i blocker "$fx_dir/shell.log" | tail -n 5)"
ok "1. make install-files installed and enabled the extension; GNOME Shell runs it (state 1)"
ge_leave_overview

# The apps: gtk3-demo, and foot (metered) on magenta, whose title changes when ./retitle appears.
ge_client foot foot --app-id=blocker-meter -o colors.background=ff00ff sh -c \
    'printf "\033]2;meter before\007"; while [ ! -e retitle ]; do sleep 0.1; done; printf "\033]2;meter after\007"; exec sleep 3600'
ge_client gtk3-demo gtk3-demo
windows_up() { [ "$(ge_json Windows "len(j)")" -ge 2 ]; }
fx_wait 15 windows_up || fail "gtk3-demo and foot did not map: $(ge_test Windows)"
demo=$(ge_json Windows "[w['wm_class'] for w in j if w['wm_class'] != 'blocker-meter'][0]")
# blockerd names it by its GTK application id (org.gtk.Demo), the shell's focus by WM_CLASS.
demo_app=$(ge_json Windows "[w['app_id'] for w in j if w['wm_class'] == '$demo'][0]")
activate "$demo"

# 2. blockerd starts after the windows: the extension reports when the name appears.
fx_config "$fx_dir/blocker.toml" /dev/null gnome 1s 0.05
sed -i '/^pushups/a squats = 0.5' "$fx_dir/blocker.toml"
printf '[[group]]\nname = "meter"\napps = ["blocker-meter"]\n' >>"$fx_dir/blocker.toml"
ge_start_blockerd "$fx_dir/blocker.toml"
front() { ge_status '(s["foreground"] or {}).get("app")'; }
front_is() { [ "$(front)" = "$1" ]; }
fx_wait 3 front_is "$demo_app" || fail "blockerd did not hear the window in front at its start: $(ge_status 's["foreground"], s["probe"]')"
[ "$(ge_status 's["probe"]["name"], s["probe"]["ok"]')" = "gnome True" ] || fail "the gnome probe is not ok: $(ge_status 's["probe"]')"
# doctor beside the running blockerd: a second probe cannot own
# io.github.blockerd.Focus, so its probe line is blockerd's answer, no failure.
doctor=$(ge_run env XDG_CURRENT_DESKTOP=GNOME "$ge_bin/blockerctl" doctor 2>&1 || true)
grep -E "^OK +probe .*gnome answers: $demo_app is in front" <<<"$doctor" >/dev/null \
    || fail "blockerctl doctor's probe line beside blockerd: $(grep probe <<<"$doctor")"
# blocker-overlay runs too, as on a real desktop: it must stay hidden.
ge_client overlay "$ge_bin/blocker-overlay"
fx_wait 5 grep -q "io.github.blockerd.Cover is owned by gnome-shell (blocker.s shell extension draws the cover)" "$fx_dir/overlay.log" \
    || fail "blocker-overlay did not see the extension's io.github.blockerd.Cover"
ok "2. blockerd started: the extension reported $demo_app in front at once (probe gnome ok)"

# 3. Focus and title changes, pushed.
ge_ctl earn 2 pushups >/dev/null || fail "blockerctl earn failed"
activate blocker-meter
fx_wait 3 front_is blocker-meter || fail "blockerd did not hear foot come to the front: $(ge_status 's["foreground"]')"
title() { ge_status '(s["foreground"] or {}).get("title")'; }
fx_wait 3 eval '[ "$(title)" = "meter before" ]' || fail "foot's title is not reported: $(title)"
touch "$fx_dir/shots/retitle"
fx_wait 3 eval '[ "$(title)" = "meter after" ]' || fail "foot's title change did not reach blockerd: $(title)"
# Control for step 5: uncovered, Alt+Tab does switch windows here.
ge_test Keys "'Alt_L+Tab'" >/dev/null
fx_wait 3 front_is "$demo_app" || fail "Alt+Tab did not switch to $demo when nothing covered (the test's keys are broken?)"
activate blocker-meter
fx_wait 3 front_is blocker-meter || fail "blockerd did not hear foot come back"
ok "3. focus ($demo → foot → Alt+Tab → $demo → foot) and the title change reached blockerd as they happened"

# 4. Charged, then covered at zero: opaque over foot's magenta.
shot uncovered
python3 -c "import sys; sys.exit(0 if float('$(magenta "$fx_dir/shots/uncovered.png")') > 0.2 else 1)" \
    || fail "foot's magenta is not on screen before the cover (check shots/uncovered.png)"
sleep 1.5
balance=$(ge_status 's["balance_ms"]')
[ "$balance" -lt 6000 ] || fail "blockerd did not charge the metered foot (balance $balance ms)"
fx_wait 10 shield_active || fail "the shield did not go up when the balance ran out ($(ge_status 's["balance_ms"]') ms)"
fx_wait 3 cover_up || fail "the extension did not draw its cover for the shield: $(ge_test State)"
sleep 0.5
shot covered
covered=$(magenta "$fx_dir/shots/covered.png")
mkdir -p docs
cp "$fx_dir/shots/covered.png" docs/cover-gnome.png
tinted=$(fx_magenta_tinted "$fx_dir/shots/covered.png")
python3 -c "import sys; sys.exit(0 if float('$covered') == 0 and $tinted == 0 else 1)" \
    || fail "foot's magenta shows through the cover ($covered of the pixels magenta, $tinted tinted by it)"
ok "4. charged ($balance ms left after 1.5 s), covered at zero: opaque, not one pixel magenta or tinted by it (docs/cover-gnome.png)"

# 5. Window-switching shortcuts while covered reveal nothing.
for keys in Alt_L+Tab Super_L+Tab Alt_L+Escape Super_L; do
    ge_test Keys "'$keys'" >/dev/null
    sleep 0.7
    [ "$(focus)" = blocker-meter ] || fail "$keys while covered moved the focus to $(focus)"
    cover_up || fail "$keys while covered took the cover away: $(ge_test State)"
done
shot after-keys
[ "$(fx_magenta_tinted "$fx_dir/shots/after-keys.png")" -eq 0 ] \
    || fail "after the shortcuts foot shows through the cover"
front_is blocker-meter || fail "blockerd sees $(front) in front after the shortcuts"
ok "5. Alt+Tab, Super+Tab, Alt+Escape, Super while covered: focus, cover and screen unchanged"

# 5b. Locked while covered: the cover steps aside for the lock screen, and is back after.
ge_test Lock >/dev/null
fx_wait 5 locked || fail "blockerd did not hear the lock: $(ge_test State)"
fx_wait 3 eval '! cover_up' || fail "the cover stayed over the lock screen: $(ge_test State)"
[ "$(ge_json State "j['locked']")" = True ] || fail "the shell is not locked: $(ge_test State)"
ge_test Unlock >/dev/null
fx_wait 5 eval '! locked' || fail "blockerd did not hear the unlock: $(ge_test State)"
fx_wait 5 cover_up || fail "the cover did not come back after the unlock: $(ge_test State)"
ok "5b. locked while covered: reported, the cover gave way to the lock screen; unlocked: reported, cover back"

# 6. blocker-overlay stayed hidden under the extension's cover (it made no
# window at all); with the extension disabled it covers instead (it maps its
# window), and hides again when the extension is back.
overlay_windows() { ge_json Windows "sum(1 for w in j if w['wm_class'] == 'blocker-overlay')"; }
[ "$(overlay_windows)" = 0 ] || fail "blocker-overlay mapped a window under the extension's cover: $(ge_test Windows)"
! grep -q "shown over" "$fx_dir/overlay.log" || fail "blocker-overlay showed its cover while the extension covered"
ge_test SetExtensionEnabled "'blocker@blockerd.github.io'" false >/dev/null
fx_wait 5 eval '! cover_up' || fail "the extension's cover stayed after it was disabled"
fx_wait 5 eval '[ "$(overlay_windows)" -ge 1 ]' \
    || fail "blocker-overlay did not cover once the extension let go of io.github.blockerd.Cover: $(ge_test Windows)"
grep -q "io.github.blockerd.Cover has no owner: covering" "$fx_dir/overlay.log" \
    || fail "blocker-overlay did not say why it covers again"
ge_test SetExtensionEnabled "'blocker@blockerd.github.io'" true >/dev/null
fx_wait 5 cover_up || fail "the extension, enabled again, did not put its cover back (Status at start)"
fx_wait 5 eval '[ "$(grep -c "blocker-overlay: hidden" "$fx_dir/overlay.log")" -ge 1 ]' \
    || fail "blocker-overlay did not hide when the extension came back"
[ "$(ge_json Windows "sum(1 for w in j if w['wm_class'] == 'blocker-overlay' and not w['hidden'])")" = 0 ] \
    || fail "blocker-overlay's window still shows with the extension covering again: $(ge_test Windows)"
[ "$(focus)" = blocker-meter ] || fail "the focus moved to $(focus) over the disable/enable"
# blocker-overlay's keyboard grab (a GTK seat grab) made the shell ask "allow
# it to inhibit shortcuts?" in a modal dialog, which holds the keyboard under
# the cover: Escape denies it (or, with no dialog, goes to the reps field).
ge_test Keys "'Escape'" >/dev/null
fx_wait 3 eval '[ "$(ge_json State "j[\"key_focus_in_cover\"]")" = True ]' \
    || fail "the keyboard is not in the extension's cover: $(ge_test State)"
ok "6. blocker-overlay stays hidden while the extension covers; covers while it is disabled; the extension re-syncs from Status when enabled"

# 7. Reps + Enter in the cover's form earn; the cover goes. First a refused count.
earned=$(grep -c "event=earn" "$fx_dir/blockerd.log" || true)
ge_test Keys "'type:0 Return'" >/dev/null
message() { ge_json State "j['cover_message']"; }
fx_wait 3 eval '[ "$(message)" = "Reps go from 1 to 1000" ]' || fail "0 reps + Enter: the form says \"$(message)\""
cover_up || fail "0 reps took the cover away"
# The refused text is selected: typing replaces it.
ge_test Keys "'type:2 Return'" >/dev/null
fx_wait 5 eval '! cover_up' || fail "the cover stayed after reps + Enter: $(ge_test State)"
[ "$(grep -c "event=earn" "$fx_dir/blockerd.log")" -gt "$earned" ] || fail "reps + Enter earned nothing"
grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1 | grep -q "reps=2 " \
    || fail "the earning was not 2 reps: $(grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1)"
shield_active && fail "the shield is still up after earning"
ok "7. 2 reps + Enter in the cover earned ($(grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1 | grep -o 'exercise=[a-z]*')); the cover went"

# 8. The lock screen, reported. The metered app is in front and charged
# (earned just now) until blockerd hears the lock; from then on, nothing.
ge_test Lock >/dev/null
fx_wait 5 locked || fail "blockerd did not hear the lock: $(ge_test State)"
balance=$(ge_status 's["balance_ms"]')
sleep 1.5
[ "$(ge_status 's["balance_ms"]')" -ge $((balance - 300)) ] \
    || fail "blockerd charged while the screen was locked ($balance → $(ge_status 's["balance_ms"]') ms)"
ge_test Unlock >/dev/null
fx_wait 5 eval '! locked' || fail "blockerd did not hear the unlock: $(ge_test State)"
ok "8. lock and unlock reported; nothing charged while locked"

# 8b. The pause before opening, drawn by the extension: nothing charged
# during it, Escape is "Not now" (the window minimized), Enter "Open" once
# the countdown is over, with the reason typed.
ge_check_pause "$demo" docs/cover-pause-gnome.png
ok "8b. the pause on GNOME Shell: nothing charged, Escape minimized foot (not now), Enter after the countdown opened it with the reason (docs/cover-pause-gnome.png)"
ge_check_pass
ok "8c. the pass on GNOME Shell: the block's cover offers it, its button lifts the block, history counts it"

# 9. make uninstall takes it away again.
ge_run env -u DBUS_SESSION_BUS_ADDRESS dbus-run-session -- sh -c '
    make --no-print-directory -C "$1/src" uninstall && gsettings get org.gnome.shell enabled-extensions' sh "$fx_dir" \
    >"$fx_dir/uninstall.log" 2>&1 || fail "make uninstall: $(tail -n 5 "$fx_dir/uninstall.log")"
fx_stop_marked
[ ! -e "$ext" ] || fail "make uninstall left $ext"
tail -n 1 "$fx_dir/uninstall.log" | grep -v "'blocker@blockerd.github.io'" >/dev/null \
    || fail "make uninstall left it in enabled-extensions: $(tail -n 1 "$fx_dir/uninstall.log")"
ok "9. make uninstall removed the extension and took it out of enabled-extensions"
echo "pass in $((SECONDS - started)) s"
