#!/usr/bin/env bash
# itest-kde.sh — KDE Plasma 5.27 on Wayland, the whole chain on real servers:
# a real KWin (kwin_wayland --virtual, with Xwayland) on a private session
# bus, blocker's KWin script installed by `make install-files`, blockerd with
# the kde probe, blocker-overlay, and the clients gtk3-demo (Wayland) and
# xterm (Xwayland; class BlockerMeter, metered).
#
#   1. make install-files (its copy/edit fallbacks, KWin not running) installs
#      the script and enables it in kwinrc; KWin loads it as it starts;
#   2. blockerd's kde probe gets the reports: each focus change (through KWin's
#      own scripting) and a title change show in `blockerctl status --json`
#      with probe kde; the metered xterm is charged, gtk3-demo is not;
#   3. make uninstall unloads and removes it (reports stop); make install-files
#      with KWin running (kpackagetool5, kwriteconfig5) loads it live, and it
#      reports at once;
#   4. with the balance at zero the overlay covers the xterm: a screenshot from
#      KWin (docs/cover-kde.png) has ≥ 90% of its pixels changed and none of
#      the xterm's magenta left;
#   5. what Alt+Tab does — KWin activating a window — while covered: activating
#      the covered xterm or a second metered one leaves the cover on top (no
#      magenta; the cover is a layer-shell surface on KWin's overlay layer),
#      and the cover takes the focus (the keyboard) back from the app;
#      activating gtk3-demo (not metered) lets it be seen, and back on the
#      xterm the cover is back;
#   5b. the overlay as an X11 fullscreen window (as on KWin's X11 session; here
#      on Xwayland): the script gives it the focus back after each switch, the
#      xterms stay hidden, and it goes (KWin intact) for gtk3-demo;
#   5c. with [pause], blocker-overlay draws the pause, nothing is charged, and
#      "Not now" minimizes the window (a one-shot KWin script), recorded at once;
#   6. blockerctl doctor says how to load the script when kwinrc disables it.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
# shellcheck source=lib/kwin-env.sh
source scripts/lib/kwin-env.sh
fx_begin kde
started=$SECONDS
fx_need kwin_wayland kpackagetool5 kwriteconfig5 gtk3-demo xterm xdotool gjs busctl dbus-daemon convert compare \
    identify python3 make
fx_programs blockerd blockerctl blocker-overlay
kw_init
front() { status '(s["foreground"] or {}).get("app"), (s["foreground"] or {}).get("title"), s["probe"]["name"]'; }
front_is() { [ "$(front 2>/dev/null)" = "$1" ]; }
script_dir=$HOME/.local/share/kwin/scripts/blocker
install_files() { # [VAR=VALUE…] — make install-files as a user would, into the scratch home
    env "$@" make --no-print-directory -C "$repo" install-files BINSRC="$bin" PREFIX="$HOME/.local" \
        >>"$fx_dir/install.log" 2>&1 || fail "make install-files failed: $(tail -n 5 "$fx_dir/install.log")"
}

# 1. Installed before KWin runs (no kpackagetool5, no kwriteconfig5: the
# fallbacks), with a kwinrc of the user's own that must survive.
mkdir -p "$HOME/.config"
printf '[Windows]\nFocusPolicy=ClickToFocus\n\n[Plugins]\nsomethingEnabled=true\n' >"$HOME/.config/kwinrc"
install_files KPACKAGETOOL=none KWRITECONFIG=none
cmp -s extensions/kwin/contents/code/main.js "$script_dir/contents/code/main.js" || fail "the script was not copied to $script_dir"
grep -qx 'blockerEnabled=true' "$HOME/.config/kwinrc" || fail "kwinrc does not enable the script: $(cat "$HOME/.config/kwinrc")"
grep -qx 'FocusPolicy=ClickToFocus' "$HOME/.config/kwinrc" && grep -qx 'somethingEnabled=true' "$HOME/.config/kwinrc" \
    || fail "installing lost the user's kwinrc settings: $(cat "$HOME/.config/kwinrc")"
kw_start_kwin
fx_wait 5 kw_script_loaded blocker || fail "KWin did not load the enabled script at its start"
ok "1. make install-files (copy + kwinrc edit): KWin loads the script at its start"

# 2. Clients, blockerd with the kde probe; focus and title changes.
kw_open_clients meter-one
kw_start_blockerd "$bin"
blockerd_pid=$kw_blockerd_pid
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval '[ "$(status "s[\"probe\"][\"ok\"]")" = True ] && front | grep -q "^gtk3-demo .* kde$"' \
    || fail "blockerd does not see gtk3-demo in front with the kde probe: $(front 2>&1), $(status 's["probe"]')"
ctl earn 4 pushups >/dev/null || fail "blockerctl earn failed"
kw_activate meter-one || fail "KWin did not activate the xterm"
fx_wait 5 front_is "blockermeter meter-one kde" || fail "the xterm in front is not reported: $(front)"
DISPLAY=$kw_display xdotool search --classname meter-one set_window --name "a new title" >/dev/null
fx_wait 5 front_is "blockermeter a new title kde" || fail "the xterm's new title is not reported: $(front)"
sleep 1.5
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo "' || fail "the switch back to gtk3-demo is not reported: $(front)"
spent=$((12000 - $(status 's["balance_ms"]')))
[ "$spent" -ge 1000 ] && [ "$spent" -le 6000 ] || fail "1.5 s in the metered xterm cost $spent ms of the balance"
sleep 1
[ $((12000 - $(status 's["balance_ms"]'))) -eq "$spent" ] || fail "gtk3-demo (not metered) was charged"
# The metered xterm in front first, then the lock: the fake screen saver is
# no known locker, so its lock is a claim that a window change would
# contradict (issue 20, row 4) — a real lock screen changes no window.
kw_activate meter-one || fail "KWin did not activate the xterm"
fx_wait 5 eval 'front | grep -qi "^blockermeter"' || fail "the xterm in front is not reported: $(front)"
echo lock >&7
fx_wait 5 eval '[ "$(status "s[\"locked\"], (s[\"foreground\"] or {}).get(\"app\")")" = "True blockermeter" ]' \
    || fail "blockerd did not follow the screen saver's lock: $(status 's["locked"]'), $(front)"
locked_at=$(status 's["balance_ms"]')
sleep 1.5
[ "$(status 's["balance_ms"]')" -eq "$locked_at" ] || fail "the metered xterm was charged with the screen locked"
echo unlock >&7
fx_wait 5 eval '[ "$(status "s[\"locked\"]")" = False ]' || fail "blockerd did not follow the unlock"
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo "' || fail "the switch back to gtk3-demo is not reported: $(front)"
grep -q "Probe kde failing" "$fx_dir/blockerd.log" && fail "the kde probe failed on the way: $(grep 'Probe kde' "$fx_dir/blockerd.log")"
doctor_probe() { ctl doctor --config "$fx_dir/blocker.toml" 2>&1 | sed -n '/^[A-Z]* *probe /,+1p' || true; }
doctor_probe | grep -q "^OK    probe  *kde answers: gtk3-demo is in front" \
    || fail "blockerctl doctor beside a running blockerd: $(doctor_probe)"
ok "2. kde probe: gtk3-demo, the xterm and its new title reported; the xterm cost $spent ms, gtk3-demo nothing; \
locked (fake screen saver): not charged"

# 3. make uninstall unloads it; make install-files with KWin running loads it live.
make --no-print-directory -C "$repo" uninstall PREFIX="$HOME/.local" >>"$fx_dir/install.log" 2>&1 \
    || fail "make uninstall failed: $(tail -n 5 "$fx_dir/install.log")"
fx_wait 5 eval '! kw_script_loaded blocker' || fail "make uninstall left the script loaded in KWin"
[ ! -e "$script_dir" ] || fail "make uninstall left $script_dir"
grep -q blockerEnabled "$HOME/.config/kwinrc" && fail "make uninstall left the kwinrc key: $(cat "$HOME/.config/kwinrc")"
kw_activate meter-one || fail "KWin did not activate the xterm"
# No report comes from an unloaded script; within its check (every 3 s)
# blockerd stops trusting the last one and says how to load it again. The
# check may come before the switch or after: either way the xterm is never seen.
fx_wait 6 eval 'status "s[\"probe\"].get(\"error\") or \"\"" | grep -q "the blocker KWin script is not loaded"' \
    || fail "blockerd did not notice the script unloaded: $(status 's["probe"]')"
front | grep -qi "blockermeter\|meter-one" && fail "a report came with the script unloaded: $(front)"
install_files
grep -q "installed with kpackagetool5" "$fx_dir/install.log" || fail "kpackagetool5 did not install it: $(cat "$fx_dir/install.log")"
grep -q "loaded into the running KWin" "$fx_dir/install.log" || fail "it was not loaded live: $(cat "$fx_dir/install.log")"
[ "$(kreadconfig5 --file kwinrc --group Plugins --key blockerEnabled)" = true ] || fail "kwriteconfig5 did not enable it"
fx_wait 5 front_is "blockermeter a new title kde" || fail "the live-loaded script did not report the xterm: $(front)"
ok "3. make uninstall unloads it; make install-files (kpackagetool5) loads it live and it reports at once"

# 4. The balance runs out in the xterm: the overlay covers it.
kw_shot "$fx_dir/before.png"
[ "$(kw_magenta_percent "$fx_dir/before.png")" -ge 50 ] || fail "the xterm is not on KWin's screenshot"
"$bin/blocker-overlay" >"$fx_dir/overlay.log" 2>&1 &
overlay_pid=$!
fx_track $overlay_pid
fx_wait 10 grep -qs "ready on" "$fx_dir/overlay.log" || fail "blocker-overlay did not start"
fx_wait 15 eval '[ "$(status "s[\"shield\"][\"active\"]")" = True ]' || fail "the balance never ran out in the xterm"
fx_wait 5 grep -qs "shown over blockermeter" "$fx_dir/overlay.log" || fail "the overlay did not show the cover"
how=$(grep -m1 "covering" "$fx_dir/overlay.log" | sed 's/.*covering/covering/')
covered() { # PNG — the xterm is hidden by the cover: not one pixel tinted by its magenta
    kw_shot "$1"
    [ "$(fx_diff_percent "$fx_dir/before.png" "$1")" -ge 90 ] && [ "$(fx_magenta_tinted "$1")" -eq 0 ]
}
fx_wait 3 covered "$fx_dir/cover.png" \
    || fail "the cover does not hide the xterm: $(fx_diff_percent "$fx_dir/before.png" "$fx_dir/cover.png")% changed, $(fx_magenta_tinted "$fx_dir/cover.png") magenta-tinted pixels"
mkdir -p docs
cp "$fx_dir/cover.png" docs/cover-kde.png
[ "$(status '(s["foreground"] or {}).get("app")')" = blockermeter ] || fail "with the cover up, blockerd sees $(front) in front"
ok "4. balance at zero: the overlay covers the xterm ($how), opaque: $(fx_magenta_tinted "$fx_dir/cover.png") of $((1280 * 800)) pixels tinted by its magenta; screenshot docs/cover-kde.png"

# 5. Window switches while covered (KWin's activation, as Alt+Tab does).
switches=()
second_pid=$(kw_xterm meter-two)
fx_track "$second_pid"
kw_wait_window meter-two || fail "the second xterm did not map"
kw_log_activations
for target in meter-one meter-two meter-one; do
    logged=$(kw_activations | wc -l)
    # KWin activates the window; the layer-shell cover stays above it and takes the keyboard back.
    kw_activate "$target" blocker-overlay || fail "the cover did not take the focus back from $target: $(kw_active) is active"
    kw_activations | tail -n +$((logged + 1)) | grep -qx "$target" || fail "KWin never activated $target"
    covered "$fx_dir/switch.png" || fail "activating $target while covered shows it: \
$(fx_diff_percent "$fx_dir/before.png" "$fx_dir/switch.png")% changed, $(fx_magenta_tinted "$fx_dir/switch.png") magenta-tinted pixels"
    switches+=("$target → $(kw_activations | tail -n +$((logged + 1)) | paste -sd, | sed 's/,/ → /g')")
done
printf 'kde: activations while covered: %s\n' "${switches[@]}"
[ "$(status 's["shield"]["active"]')" = True ] || fail "the shield dropped while switching between covered windows"
grep -q "blocker-overlay" <<<"$(front)" && fail "blockerd took the cover for the foreground: $(front)"
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval '[ "$(status "s[\"shield\"][\"active\"]")" = False ]' || fail "the shield stayed up over gtk3-demo"
fx_wait 5 grep -qs "blocker-overlay: hidden" "$fx_dir/overlay.log" || fail "the cover stayed over gtk3-demo"
kw_activate meter-one blocker-overlay || fail "back on the xterm, the cover did not come back with the focus"
fx_wait 5 eval '[ "$(grep -c "shown over blockermeter" "$fx_dir/overlay.log")" -ge 2 ]' \
    || fail "the cover did not come back over the xterm"
fx_wait 3 covered "$fx_dir/switch.png" || fail "back on the xterm, the cover does not hide it"
ok "5. activating covered windows (as Alt+Tab would): the cover stays on top and takes the focus back; gtk3-demo uncovered; back: covered"

# 5b. The cover as an ordinary fullscreen window (what it is on KWin's X11
# session; here the overlay on Xwayland): the script pins it and takes the
# focus back for it.
fx_stop "$overlay_pid"
GDK_BACKEND=x11 DISPLAY=$kw_display "$bin/blocker-overlay" >"$fx_dir/overlay-x11.log" 2>&1 &
overlay_pid=$!
fx_track $overlay_pid
fx_wait 10 grep -qs "shown over blockermeter" "$fx_dir/overlay-x11.log" || fail "the X11 overlay did not show the cover"
grep -q "covering 1 monitor(s) on X11" "$fx_dir/overlay-x11.log" || fail "the overlay is not an X11 window: $(grep covering "$fx_dir/overlay-x11.log")"
fx_wait 3 covered "$fx_dir/switch.png" || fail "the X11 cover does not hide the xterm"
for target in meter-two meter-one; do
    logged=$(kw_activations | wc -l)
    kw_activate "$target" blocker-overlay || fail "the script did not give the focus back to the X11 cover: $(kw_active) is active"
    kw_activations | tail -n +$((logged + 1)) | grep -qx "$target" || fail "KWin never activated $target"
    covered "$fx_dir/switch.png" || fail "activating $target shows it above the X11 cover: \
$(fx_diff_percent "$fx_dir/before.png" "$fx_dir/switch.png")% changed, $(fx_magenta_tinted "$fx_dir/switch.png") magenta-tinted pixels"
done
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo past the X11 cover"
fx_wait 5 eval '[ "$(status "s[\"shield\"][\"active\"]")" = False ]' || fail "the shield stayed up over gtk3-demo"
sleep 0.5
kw_has_owner org.kde.KWin || fail "KWin died as the X11 cover went away"
[ "$(kw_active)" = gtk3-demo ] || fail "with the X11 cover gone, $(kw_active) is active, not gtk3-demo"
ok "5b. an X11 fullscreen cover: pinned by the script, the focus given back after each switch; gtk3-demo uncovered"

# 5c. The pause before opening, on KDE: blocker-overlay draws it (the X11
# cover of 5b); nothing is charged; "Not now" has KWin minimize the window
# (blockerd loads a one-shot script: blocker's own only reports), and the
# answer is recorded at once.
printf '\n[pause]\nseconds = 3\nafter = "2s"\n' >>"$fx_dir/blocker.toml"
ctl reload >/dev/null || fail "blockerctl reload with [pause] failed"
ctl earn 100 pushups >/dev/null || fail "blockerctl earn failed"
sleep 2.5
kw_activate meter-one blocker-overlay || fail "the pause cover did not take the focus: $(kw_active) is active"
fx_wait 3 eval '[ "$(kw_shield_reason)" = pause ]' || fail "no pause when the xterm came back: $(kw_shield_reason)"
fx_wait 3 grep -qs "shown over blockermeter (pause)" "$fx_dir/overlay-x11.log" || fail "blocker-overlay did not show the pause"
paused_at=$(status 's["balance_ms"]')
sleep 1.5
[ "$(status 's["balance_ms"]')" = "$paused_at" ] || fail "the pause was charged: $paused_at → $(status 's["balance_ms"]') ms"
[ "$(kw_minimized meter-one)" = false ] || fail "the xterm is minimized before any answer: $(kw_minimized meter-one)"
kw_answer_pause false >/dev/null || fail "AnswerPause(false) was refused"
[ "$(kw_not_now)" = "[1]" ] || fail "Not now was not recorded at once: $(kw_not_now); $(grep -i 'not now' "$fx_dir/blockerd.log" | tail -n 2)"
fx_wait 3 eval '[ "$(kw_minimized meter-one)" = true ]' \
    || fail "Not now did not minimize the xterm: $(kw_minimized meter-one); $(grep -i 'not now' "$fx_dir/blockerd.log" | tail -n 2)"
fx_wait 3 eval '[ "$(kw_shield_reason)" = down ]' || fail "the pause stayed with the xterm minimized: $(kw_shield_reason), $(front) in front"
[ "$(status 's["balance_ms"]')" = "$paused_at" ] || fail "the pause was charged: $paused_at → $(status 's["balance_ms"]') ms"
ok "5c. the pause on KDE: drawn by blocker-overlay, nothing charged; Not now had KWin minimize the xterm, recorded at once"

# 6. doctor, blockerd stopped: the script disabled in kwinrc, then enabled again.
fx_stop "$blockerd_pid"
kwriteconfig5 --file kwinrc --group Plugins --key blockerEnabled false
doctor_probe | grep -q "^FAIL  probe .*the blocker KWin script is not loaded" || fail "doctor with the script disabled: $(doctor_probe)"
doctor_probe | grep -q "fix: make install (installs, enables and loads the KWin script)" \
    || fail "doctor does not say how to load the script: $(doctor_probe)"
kw_script_loaded blocker && fail "the script disabled in kwinrc is still loaded"
# blockerd started without the script follows it once it is installed: no restart.
"$bin/blockerd" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/state" >>"$fx_dir/blockerd.log" 2>&1 &
blockerd_pid=$!
fx_track $blockerd_pid
fx_wait 10 eval 'ctl status >/dev/null 2>&1' || fail "blockerd does not answer"
fx_wait 5 eval 'status "s[\"probe\"][\"error\"]" | grep -q "the blocker KWin script is not loaded"' \
    || fail "blockerd without the script: $(status 's["probe"]')"
install_files
doctor_probe | grep -q "^OK    probe  *kde answers: " || fail "doctor after make install-files: $(doctor_probe)"
fx_wait 5 eval '[ "$(status "s[\"probe\"][\"ok\"]")" = True ]' \
    || fail "blockerd did not follow the script loaded after it started: $(status 's["probe"]')"
ok "6. doctor: the script disabled in kwinrc is a FAIL with the fix; after make install-files, OK, and the running blockerd follows it"

# 7. On a machine without KWin the install leaves nothing behind: no script, no kwinrc.
bare=$fx_dir/no-kwin
mkdir -p "$bare/bin" "$bare/home"
for tool in bash awk mkdir cp rm chmod mktemp mv dirname busctl seq sleep cat; do
    ln -s "$(command -v "$tool")" "$bare/bin/$tool"
done
said=$(env -i HOME="$bare/home" PATH="$bare/bin" "$bare/bin/bash" scripts/install-kwin-script.sh install)
[ -z "$(ls -A "$bare/home")" ] || fail "install without KWin wrote $(cd "$bare/home" && find . -mindepth 1 | head -3)"
grep -q "no KWin on this machine: nothing installed" <<<"$said" || fail "install without KWin said: $said"
ok "7. no KWin on the machine: the install says so and writes nothing"

ok "pass in $((SECONDS - started)) s"
