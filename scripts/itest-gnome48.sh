#!/usr/bin/env bash
# itest-gnome48.sh — blocker on a real GNOME Shell 48 (Debian 13, headless,
# Wayland with Xwayland), the whole chain with the real blockerd:
# the shell runs in the Debian 13 chroot (scripts/trixie.sh: built when
# missing, kept under /var/cache/blocker-tests) in a network namespace of its
# own; blockerd and blockerctl are this checkout's build, on the shell's
# session bus through its path socket (scripts/lib/gnome-env.sh, GE_CHROOT).
#
#   1. blocker's extension, installed as `make install` does
#      (scripts/gnome-extension.sh install, inside the chroot), is the
#      ES-module variant and GNOME Shell 48 runs it (state 1), with no error
#      and no St warning about its stylesheet in the shell's log;
#   2. a Wayland window (foot, app id blocker-meter) and an Xwayland one
#      (xterm, class BlockerX): each focus change reaches `blockerctl status`
#      with app id, title and the window's own pid, and so does a title change;
#   3. the lock screen is reported and nothing is charged while locked;
#   4. the metered foot is charged; at zero the extension's cover is up,
#      opaque: not one pixel of foot's magenta shows (docs/cover-gnome48.png);
#   5. 2 reps + Enter in the cover earn, and the cover goes;
#   6. `blockerctl probe` beside the running blockerd answers with what
#      blockerd's gnome probe sees, saying so; a reload that changes
#      [daemon] poll-interval leaves the gnome probe seeing;
#   7. the extension disabled: blockerd says at once that its plugin is gone
#      (probe not ok, naming the fix; no foreground) and charges nothing;
#      enabled again, it recovers; `history` shows the blind time;
#   8. with [pause], the extension draws the pause (ge_check_pause): nothing
#      charged, Escape is "Not now" (foot minimized), Enter after the
#      countdown "Open" (docs/cover-pause-gnome48.png);
#   8b. with [pass], a block's cover offers the pass; its button lifts the
#      block and history counts it (ge_check_pass);
#   9. in French: GNOME Shell 48 started again with LANG=fr_FR.UTF-8 shows
#      the cover in the words of the extension's locale/fr, the reps preview
#      in its plural form too, none of them English (docs/gnome48-fr.png).
# Exit 0 pass, 1 fail; a missing tool, chroot or server is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
scripts/trixie.sh ensure || { echo "itest-gnome48: FAIL: the Debian 13 chroot could not be built" >&2; exit 1; }
GE_CHROOT=$(scripts/trixie.sh root)
# shellcheck source=lib/gnome-env.sh
source scripts/lib/gnome-env.sh
fx_begin itest-gnome48
fx_fail_on_error
started=$SECONDS
fx_need compare identify convert
ge_init

# 1. Installed as make install does it, for the shell that is there: the ESM variant.
uuid=blocker@blockerd.github.io
ge_run env -u DBUS_SESSION_BUS_ADDRESS dbus-run-session -- sh -c '
    "$1/src/scripts/gnome-extension.sh" install || exit 1
    test=blocker-test@blockerd.github.io
    "$1/src/scripts/lib/gnome-test-extension/install.sh" "$HOME/.local/share/gnome-shell/extensions/$test" 48 || exit 1
    list=$(gsettings get org.gnome.shell enabled-extensions)
    gsettings set org.gnome.shell enabled-extensions "${list%]}, '"'"'$test'"'"']"
    gsettings set org.gnome.shell welcome-dialog-last-shown-version "999"
    gsettings set org.gnome.desktop.session idle-delay 0
    gsettings set org.gnome.desktop.peripherals.keyboard repeat false
    gsettings get org.gnome.shell enabled-extensions' sh "$fx_dir" >"$fx_dir/install.log" 2>&1 \
    || fail "gnome-extension.sh install in the chroot: $(tail -n 5 "$fx_dir/install.log")"
fx_stop_marked
ext=$ge_home/.local/share/gnome-shell/extensions/$uuid
grep -q '"48"' "$ext/metadata.json" || fail "the installed metadata.json does not name GNOME 48: $(cat "$ext/metadata.json")"
grep -q "export default class" "$ext/extension.js" || fail "GNOME 48 got the legacy entry point"
ge_start_shell
version=$(ge_gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell \
    --method org.freedesktop.DBus.Properties.Get org.gnome.Shell ShellVersion)
[[ $version == *"'48."* ]] || fail "the chroot's shell is not GNOME Shell 48: $version"
state=$(ge_extension_state "$uuid")
[ "$state" = 1.0 ] || fail "GNOME Shell 48 has blocker's extension in state $state, not 1: $(grep -i blocker "$fx_dir/shell.log" | tail -n 5)"
ge_leave_overview
ok "1. the ES-module extension installed by gnome-extension.sh runs on GNOME Shell ${version//[^0-9.]/} (state 1)"

# 2. A Wayland foot (metered, magenta) and an Xwayland xterm (metered).
ge_client foot foot --app-id=blocker-meter -o colors.background=ff00ff sh -c \
    'printf "\033]2;meter before\007"; while [ ! -e retitle ]; do sleep 0.1; done; printf "\033]2;meter after\007"; exec sleep 3600'
foot_pid=$ge_spawned
xdisplay() { sed -n 's/.*Using public X11 display \(:[0-9]*\).*/\1/p' "$fx_dir/shell.log" | head -n 1; }
fx_wait 20 eval '[ -n "$(xdisplay)" ]' || fail "GNOME Shell 48 started no Xwayland: $(grep -i xwayland "$fx_dir/shell.log" | tail -n 3)"
xauth=$(ls "$ge_runtime"/.mutter-Xwaylandauth.* 2>/dev/null | head -n 1)
ge_client xterm env -u WAYLAND_DISPLAY -u GDK_BACKEND DISPLAY="$(xdisplay)" XAUTHORITY="$xauth" \
    xterm -class BlockerX -T "x meter" -bg magenta -e sleep 3600
xterm_pid=$ge_spawned
windows_up() { [ "$(ge_json Windows "len(j)")" -ge 2 ]; }
fx_wait 20 windows_up || fail "foot and xterm did not map: $(ge_test Windows)"
activate blocker-meter

fx_config "$fx_dir/blocker.toml" /dev/null gnome 1s 0.05
printf '[[group]]\nname = "meter"\napps = ["blocker-meter", "blockerx"]\n' >>"$fx_dir/blocker.toml"
ge_start_blockerd "$fx_dir/blocker.toml"
front() { ge_status '(lambda f: "%s|%s|%s" % (f.get("app"), f.get("title"), f.get("pid")))(s["foreground"] or {})'; }
front_is() { [ "$(front)" = "$1" ]; }
fx_wait 5 front_is "blocker-meter|meter before|$foot_pid" \
    || fail "blockerd did not hear foot (Wayland) in front with its title and pid $foot_pid: $(front)"
[ "$(ge_status 's["probe"]["name"], s["probe"]["ok"]')" = "gnome True" ] || fail "the gnome probe is not ok: $(ge_status 's["probe"]')"
touch "$fx_dir/shots/retitle"
fx_wait 5 front_is "blocker-meter|meter after|$foot_pid" || fail "foot's title change did not reach blockerd: $(front)"
activate BlockerX
xterm_app=$(ge_status '(s["foreground"] or {}).get("app")')
fx_wait 5 front_is "$xterm_app|x meter|$xterm_pid" || fail "blockerd did not hear the Xwayland xterm (pid $xterm_pid): $(front)"
[ "$(tr '[:upper:]' '[:lower:]' <<<"$xterm_app")" = blockerx ] || fail "the Xwayland xterm's app id is $xterm_app, not its class BlockerX"
activate blocker-meter
fx_wait 5 front_is "blocker-meter|meter after|$foot_pid" || fail "blockerd did not hear foot come back: $(front)"
ok "2. Wayland foot and Xwayland xterm ($xterm_app) reached blockerd with app id, title and pid; the title change too"

# 3. Locked: reported, nothing charged.
ge_ctl earn 2 pushups >/dev/null || fail "blockerctl earn failed"
ge_test Lock >/dev/null
fx_wait 10 locked || fail "blockerd did not hear the lock: $(ge_test State)"
balance=$(ge_status 's["balance_ms"]')
sleep 1.5
[ "$(ge_status 's["balance_ms"]')" -ge $((balance - 300)) ] \
    || fail "blockerd charged while the screen was locked ($balance → $(ge_status 's["balance_ms"]') ms)"
ge_test Unlock >/dev/null
fx_wait 10 eval '! locked' || fail "blockerd did not hear the unlock: $(ge_test State)"
fx_wait 5 eval '[ "$(focus)" = blocker-meter ]' || activate blocker-meter
ok "3. lock and unlock reported; nothing charged while locked"

# 4. Charged, then covered at zero: opaque over foot's magenta.
shot uncovered
python3 -c "import sys; sys.exit(0 if float('$(magenta "$fx_dir/shots/uncovered.png")') > 0.2 else 1)" \
    || fail "foot's magenta is not on screen before the cover (check shots/uncovered.png)"
balance=$(ge_status 's["balance_ms"]')
sleep 1.5
[ "$(ge_status 's["balance_ms"]')" -lt "$balance" ] || fail "blockerd did not charge the metered foot (balance $balance ms)"
fx_wait 10 shield_active || fail "the shield did not go up when the balance ran out ($(ge_status 's["balance_ms"]') ms)"
fx_wait 5 cover_up || fail "the extension did not draw its cover for the shield: $(ge_test State)"
sleep 0.5
shot covered
covered=$(magenta "$fx_dir/shots/covered.png")
tinted=$(fx_magenta_tinted "$fx_dir/shots/covered.png")
python3 -c "import sys; sys.exit(0 if float('$covered') == 0 and $tinted == 0 else 1)" \
    || fail "foot's magenta shows through the cover ($covered of the pixels magenta, $tinted tinted by it)"
mkdir -p docs
cp "$fx_dir/shots/covered.png" docs/cover-gnome48.png
ok "4. charged, covered at zero: opaque, not one pixel magenta or tinted by it (docs/cover-gnome48.png)"

# 5. Reps + Enter in the cover earn; the cover goes.
ge_test Keys "'Escape'" >/dev/null
fx_wait 3 eval '[ "$(ge_json State "j[\"key_focus_in_cover\"]")" = True ]' \
    || fail "the keyboard is not in the extension's cover: $(ge_test State)"
earned=$(grep -c "event=earn" "$fx_dir/blockerd.log" || true)
ge_test Keys "'type:2 Return'" >/dev/null
fx_wait 5 eval '! cover_up' || fail "the cover stayed after reps + Enter: $(ge_test State)"
[ "$(grep -c "event=earn" "$fx_dir/blockerd.log")" -gt "$earned" ] || fail "reps + Enter earned nothing"
shield_active && fail "the shield is still up after earning"
ok "5. 2 reps + Enter in the cover earned; the cover went"

# 6. blockerctl probe beside blockerd; a reload of [daemon] keeps the probe.
ge_ctl earn 20 pushups >/dev/null || fail "blockerctl earn failed"
probe_out=$(ge_ctl probe --config "$fx_dir/blocker.toml" 2>&1) || fail "blockerctl probe beside blockerd failed: $probe_out"
grep -q "blockerd's gnome probe answers" <<<"$probe_out" || fail "blockerctl probe does not say blockerd answers: $probe_out"
probe_json=$(ge_ctl probe --json --config "$fx_dir/blocker.toml") || fail "blockerctl probe --json beside blockerd failed"
python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(0 if j["source"] == "blockerd" and j["app"] == "blocker-meter" else 1)' \
    "$probe_json" || fail "blockerctl probe --json: $probe_json"
sed -i 's/^poll-interval = .*/poll-interval = "2s"/' "$fx_dir/blocker.toml"
ge_ctl reload >/dev/null || fail "blockerctl reload failed"
# The new probe asks the extension for a report as it opens: seeing again within moments.
fx_wait 5 eval '[ "$(ge_status "s[\"probe\"][\"name\"], s[\"probe\"][\"ok\"]")" = "gnome True" ]' \
    || fail "after the reload the probe is $(ge_status 's["probe"]')"
activate BlockerX
fx_wait 5 front_is "$xterm_app|x meter|$xterm_pid" || fail "after the reload blockerd does not hear the focus change: $(front)"
activate blocker-meter
fx_wait 5 front_is "blocker-meter|meter after|$foot_pid" || fail "after the reload blockerd does not hear foot: $(front)"
ok "6. blockerctl probe answers with blockerd's gnome probe (says so; --json source blockerd); a reload of [daemon] keeps it seeing"

# 7. The extension disabled: blockerd knows at once; nothing charged; enabled: back.
balance=$(ge_status 's["balance_ms"]')
sleep 1.5
[ "$(ge_status 's["balance_ms"]')" -lt "$balance" ] || fail "the metered foot is not being charged before the extension goes (the control)"
ge_test SetExtensionEnabled "'$uuid'" false >/dev/null
probe_down() { [ "$(ge_status 's["probe"]["ok"]')" = False ]; }
fx_wait 5 probe_down || fail "blockerd did not notice the extension was disabled: $(ge_status 's["probe"]')"
error=$(ge_status 's["probe"]["error"]')
grep -q "gnome-extensions enable $uuid" <<<"$error" || fail "the probe's error does not name the fix: $error"
[ "$(ge_status 's["foreground"]')" = None ] || fail "with the extension gone blockerd still has a foreground: $(front)"
balance=$(ge_status 's["balance_ms"]')
sleep 2.5
[ "$(ge_status 's["balance_ms"]')" -eq "$balance" ] || fail "blockerd charged with its extension gone ($balance → $(ge_status 's["balance_ms"]') ms)"
fx_wait 5 grep -q "event=probe-error" "$fx_dir/blockerd.log" || fail "no probe-error event in blockerd's log"
ge_test SetExtensionEnabled "'$uuid'" true >/dev/null
fx_wait 10 eval '! probe_down' || fail "blockerd did not recover when the extension came back: $(ge_status 's["probe"]')"
fx_wait 5 front_is "blocker-meter|meter after|$foot_pid" || fail "after the extension came back blockerd does not see foot: $(front)"
history=$(ge_ctl history --days 1) || fail "blockerctl history failed"
grep -q "probe blind" <<<"$history" || fail "history does not show the blind time: $history"
ok "7. the extension disabled: probe not ok at once ($error), no foreground, nothing charged, probe-error logged; enabled: back; history: $(grep -o 'probe blind [0-9a-z ]*' <<<"$history" | head -n 1)"

# 8. The pause, drawn by the extension on GNOME 48: the xterm leaves the group,
# so switching to it is being away.
sed -i 's/^apps = \["blocker-meter", "blockerx"\]/apps = ["blocker-meter"]/' "$fx_dir/blocker.toml"
ge_check_pause BlockerX docs/cover-pause-gnome48.png
ok "8. the pause on GNOME Shell 48: nothing charged, Escape minimized foot (not now), Enter after the countdown opened it with the reason (docs/cover-pause-gnome48.png)"
ge_check_pass
ok "8b. the pass on GNOME Shell 48: the block's cover offers it, its button lifts the block, history counts it"

# 9. In French: the shell again with LANG=fr_FR.UTF-8 (scripts/trixie.sh makes
# the locale, and installs GNOME Shell's own French: without it GLib
# translates no extension either), on the same buses; a fresh blockerd, at no
# balance, covers foot at once.
french_started=$SECONDS
fx_stop "$ge_blockerd_pid"
fx_stop "$xterm_pid"
fx_stop "$foot_pid"
ge_stop_shell
ge_start_shell LANG=fr_FR.UTF-8
ge_leave_overview
ge_client foot-fr foot --app-id=blocker-meter -o colors.background=ff00ff sleep 3600
fx_wait 20 eval '[ "$(ge_json Windows "len(j)")" -ge 1 ]' || fail "foot did not map on the French shell: $(ge_test Windows)"
activate blocker-meter
fx_config "$fx_dir/fr.toml" /dev/null gnome 1s 0.05
printf '[[group]]\nname = "meter"\napps = ["blocker-meter"]\n' >>"$fx_dir/fr.toml"
ge_start_blockerd "$fx_dir/fr.toml" "$fx_dir/state-fr"
fx_wait 10 shield_active || fail "the shield did not go up at no balance: $(ge_status 's["shield"]')"
fx_wait 5 cover_up || fail "the French shell's extension did not draw its cover: $(ge_test State)"
# What the cover must say: each text as the installed locale/fr has it (and, to
# compare, as English has it); {name}=value filled, n=N for a plural form.
say_in() { # fr|en MSGID [NAME=VALUE…]
    python3 - "$ext/locale/fr/LC_MESSAGES/blocker-gnome-shell.mo" "$@" <<'PY'
import gettext, sys
mo, language, msgid, *pairs = sys.argv[1:]
values = dict(pair.split('=', 1) for pair in pairs)
words = gettext.GNUTranslations(open(mo, 'rb')) if language == 'fr' else gettext.NullTranslations()
text = words.ngettext(msgid, msgid, int(values['n'])) if 'n' in values else words.gettext(msgid)
for name, value in values.items():
    text = text.replace('{%s}' % name, value)
print(text)
PY
}
cover_words() { # fr|en — the balance cover's words, in order, joined by |
    local words=(BLOCKER blocker-meter "$(say_in "$1" 'Out of earned time')"
        "$(say_in "$1" 'Balance {time}' time="$(say_in "$1" '{s}s' s=0)")" "$(say_in "$1" 'Earn more time')"
        "$(say_in "$1" reps)" "$(say_in "$1" Log)" "$(say_in "$1" 'Type your reps, then press Enter')")
    (IFS='|'; echo "${words[*]}")
}
french=$(cover_words fr)
[ "$french" != "$(cover_words en)" ] || fail "locale/fr says the cover's words in English: $french"
shown=$(ge_json State "'|'.join(j['cover_words'])")
[ "$shown" = "$french" ] || fail "the French shell's cover says \"$shown\", not \"$french\""
# Two reps typed: the preview, in French's plural form (2 reps at 3 s each).
ge_test Keys "'type:2'" >/dev/null
preview=$(say_in fr '{reps} {exercise} earn {time}' n=2 reps=2 exercise=pushups time="$(say_in fr '{s}s' s=6)")
fx_wait 3 eval '[ "$(ge_json State "j[\"cover_message\"]")" = "$preview" ]' \
    || fail "after 2 reps typed the French cover says \"$(ge_json State "j['cover_message']")\", not \"$preview\""
shot french
cp "$fx_dir/shots/french.png" docs/gnome48-fr.png
ok "9. GNOME Shell 48 in French (LANG=fr_FR.UTF-8), in $((SECONDS - french_started)) s: the cover says $french, then \"$preview\" (docs/gnome48-fr.png)"

# No St warning about blocker's stylesheet, no JS error from blocker's extension.
! grep -E "Couldn't parse|JS ERROR.*blocker@|blocker@blockerd.github.io.*(Error|error)" "$fx_dir/shell.log" \
    || fail "GNOME Shell 48 logged errors for blocker's extension (above)"
echo "pass in $((SECONDS - started)) s"
