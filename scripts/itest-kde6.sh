#!/usr/bin/env bash
# itest-kde6.sh — blocker on a real KWin 6 (Debian 13, Wayland, virtual
# output, Xwayland), the whole chain with the real blockerd: KWin and its
# clients run in the Debian 13 chroot (scripts/trixie.sh: built when missing,
# kept under /var/cache/blocker-tests) in a network namespace of their own;
# blockerd, blockerctl and blocker-overlay are this checkout's build, on
# KWin's session bus and Wayland socket (scripts/lib/kwin-env.sh, KW_CHROOT).
#
#   1. blocker's KWin script, installed as `make install` does
#      (scripts/install-kwin-script.sh: kpackagetool6, kwriteconfig6, loaded
#      live over org.kde.kwin.Scripting — in the chroot, where busctl cannot
#      read a peer's credentials), runs in KWin 6 with no script error;
#   2. gtk3-demo (Wayland) and an xterm (Xwayland, metered): each focus change
#      and a title change reach `blockerctl status` with app id, title and the
#      window's own pid; the xterm is charged, gtk3-demo is not;
#   3. locked (a fake org.freedesktop.ScreenSaver: kscreenlocker cannot run on a
#      virtual KWin): reported, nothing charged;
#   4. at zero blocker-overlay covers the xterm. KWin 6 on this machine has no
#      screenshot (its ScreenShot2 effect needs OpenGL, and there is no GPU),
#      so the cover is proven from KWin's own state, asked through its
#      scripting API: the cover is a window KWin stacks above the xterm, on a
#      layer above normal windows, its frame covering the xterm's whole frame,
#      and it holds the focus;
#   5. 4 reps typed into the cover's form (the X11 cover on Xwayland: no key
#      can be typed into a Wayland surface on KWin here) earn and lift it:
#      KWin no longer shows it;
#   6. `blockerctl probe` beside the running blockerd answers with what
#      blockerd's kde probe sees, saying so; a reload that changes [daemon]
#      poll-interval leaves the kde probe seeing;
#   7. the script unloaded: blockerd says within seconds that its plugin is
#      gone (probe not ok, naming the fix; no foreground) and charges nothing;
#      loaded again (install-kwin-script.sh), it recovers; `history` shows
#      the blind time;
#   8. with [pause], the pause covers the xterm coming back (nothing charged),
#      and "Not now" has KWin 6 minimize it (a one-shot script), recorded at once.
# Exit 0 pass, 1 fail; a missing tool, chroot or server is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/fixtures.sh
source scripts/lib/fixtures.sh
scripts/trixie.sh ensure || { echo "itest-kde6: FAIL: the Debian 13 chroot could not be built" >&2; exit 1; }
KW_CHROOT=$(scripts/trixie.sh root)
# shellcheck source=lib/kwin-env.sh
source scripts/lib/kwin-env.sh
fx_begin kde6
started=$SECONDS
fx_need nsenter unshare gjs busctl dbus-daemon python3
fx_programs blockerd blockerctl blocker-overlay
kw_init
# The app id as KWin 6 gives it (resourceClass, no longer lowercased as in 5.27: BlockerMeter), compared lowercased.
front() { status '(lambda f: "%s|%s|%s" % (str(f.get("app")).lower(), f.get("title"), f.get("pid")))(s["foreground"] or {})'; }
front_is() { [ "$(front 2>/dev/null)" = "$1" ]; }

# 1. KWin 6 up; the script installed and loaded live as make install does, in the chroot.
kw_start_kwin
version=$(kw_session kwin_wayland --version 2>/dev/null | head -n 1)
[[ $version == "kwin 6."* ]] || fail "the chroot's KWin is not KWin 6: $version"
# What the chroot runs comes from a copy in $fx_dir (bound in at the same path).
mkdir -p "$fx_dir/src/scripts" "$fx_dir/src/extensions"
cp scripts/install-kwin-script.sh "$fx_dir/src/scripts/"
cp -r extensions/kwin "$fx_dir/src/extensions/"
kw_session env HOME="$HOME" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" \
    PATH=/usr/bin:/bin bash "$fx_dir/src/scripts/install-kwin-script.sh" install >"$fx_dir/install.log" 2>&1 \
    || fail "install-kwin-script.sh install in the chroot: $(cat "$fx_dir/install.log")"
grep -q "installed with kpackagetool6" "$fx_dir/install.log" || fail "kpackagetool6 did not install it: $(cat "$fx_dir/install.log")"
grep -q "loaded into the running KWin" "$fx_dir/install.log" || fail "it was not loaded live: $(cat "$fx_dir/install.log")"
fx_wait 5 kw_script_loaded blocker || fail "KWin 6 does not have the script loaded"
ok "1. install-kwin-script.sh in the chroot: kpackagetool6 installed it, loaded live into $version"

# 2. Clients; blockerd with the kde probe.
kw_open_clients meter-one
kw_start_blockerd "$bin"
blockerd_pid=$kw_blockerd_pid
demo_pid=$(pgrep -x gtk3-demo | while read -r p; do grep -qx "$fx_dir/runtime" <(tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/^XDG_RUNTIME_DIR=//p') && echo "$p"; done | head -n 1)
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo|.*|$demo_pid$"' \
    || fail "blockerd does not see gtk3-demo (Wayland, pid $demo_pid) in front: $(front), $(status 's["probe"]')"
[ "$(status 's["probe"]["name"], s["probe"]["ok"]')" = "kde True" ] || fail "the kde probe is not ok: $(status 's["probe"]')"
ctl earn 4 pushups >/dev/null || fail "blockerctl earn failed"
kw_activate meter-one || fail "KWin did not activate the xterm"
fx_wait 5 front_is "blockermeter|meter-one|$kw_xterm_pid" || fail "the Xwayland xterm (pid $kw_xterm_pid) is not reported: $(front)"
DISPLAY=$kw_display kw_session xdotool search --classname meter-one set_window --name "a new title" >/dev/null
fx_wait 5 front_is "blockermeter|a new title|$kw_xterm_pid" || fail "the xterm's new title is not reported: $(front)"
sleep 1.5
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo|"' || fail "the switch back to gtk3-demo is not reported: $(front)"
spent=$((12000 - $(status 's["balance_ms"]')))
[ "$spent" -ge 1000 ] && [ "$spent" -le 6000 ] || fail "1.5 s in the metered xterm cost $spent ms of the balance"
sleep 1
[ $((12000 - $(status 's["balance_ms"]'))) -eq "$spent" ] || fail "gtk3-demo (not metered) was charged"
ok "2. kde probe on KWin 6: gtk3-demo (Wayland, pid $demo_pid), the Xwayland xterm (pid $kw_xterm_pid) and its new title reported; the xterm cost $spent ms, gtk3-demo nothing"

# 3. Locked: reported, nothing charged.
# The metered xterm in front first, then the lock: the fake screen saver is
# no known locker, so its lock is a claim that a window change would
# contradict (issue 20, row 4) — a real lock screen changes no window.
kw_activate meter-one || fail "KWin did not activate the xterm"
fx_wait 5 eval 'front | grep -qi "^blockermeter"' || fail "the xterm in front is not reported: $(front)"
echo lock >&7
fx_wait 5 eval '[ "$(status "s[\"locked\"]")" = True ]' || fail "blockerd did not follow the screen saver's lock"
locked_at=$(status 's["balance_ms"]')
sleep 1.5
[ "$(status 's["balance_ms"]')" -eq "$locked_at" ] || fail "the metered xterm was charged with the screen locked"
echo unlock >&7
fx_wait 5 eval '[ "$(status "s[\"locked\"]")" = False ]' || fail "blockerd did not follow the unlock"
ok "3. locked: reported, the xterm not charged; unlocked: reported"

# 4. The balance runs out in the xterm: blocker-overlay (the host's, on KWin's
# Wayland socket) covers it. KWin's own state says so.
"$bin/blocker-overlay" >"$fx_dir/overlay.log" 2>&1 &
overlay_pid=$!
fx_track $overlay_pid
fx_wait 10 grep -qs "ready on" "$fx_dir/overlay.log" || fail "blocker-overlay did not start"
fx_wait 20 eval '[ "$(status "s[\"shield\"][\"active\"]")" = True ]' || fail "the balance never ran out in the xterm"
fx_wait 5 grep -qsi "shown over blockermeter" "$fx_dir/overlay.log" || fail "the overlay did not show the cover"
# The stacking order, bottom to top, as KWin has it: one JSON object a window.
kw_stacking() {
    local mark=stack-$RANDOM$RANDOM
    cat >"$fx_dir/stack.js" <<JS
// Test only: prints KWin's stacking order with each window's frame, layer and flags.
const order = workspace.stackingOrder;
const rows = [];
for (let i = 0; i < order.length; i++) {
    const w = order[i], g = w.frameGeometry;
    rows.push({name: String(w.resourceName), cls: String(w.resourceClass), pid: w.pid, index: i, layer: w.layer,
        x: g.x, y: g.y, w: g.width, h: g.height, keepAbove: w.keepAbove, active: w.active,
        visible: !w.minimized && !w.hidden, normal: w.normalWindow});
}
print("$mark " + JSON.stringify(rows));
JS
    kw_run_js blocker-test-stack "$fx_dir/stack.js"
    for _ in $(seq 40); do
        grep -m1 "js: $mark " "$fx_dir/kwin.log" 2>/dev/null | sed "s/.*$mark //" | grep . && return 0
        sleep 0.025
    done
    return 1
}
# The cover is blocker-overlay'"'"'s window, known by its pid: KWin 6 gives a
# layer-shell surface no resource name or class.
cover_check='
import json, os, sys
rows = json.loads(sys.stdin.read())
meter = [r for r in rows if r["name"] == "meter-one"]
cover = [r for r in rows if r["pid"] == int(os.environ["COVER_PID"])]
if not meter or not cover:
    sys.exit("no %s in KWin: %s" % ("xterm" if not meter else "cover", [(r["name"], r["cls"]) for r in rows]))
m, c = meter[0], cover[-1]
covers = c["x"] <= m["x"] and c["y"] <= m["y"] and c["x"] + c["w"] >= m["x"] + m["w"] and c["y"] + c["h"] >= m["y"] + m["h"]
problems = [why for ok, why in [
    (c["index"] > m["index"], "the cover is stacked below the xterm"),
    (c["visible"], "the cover is not shown"),
    (covers, "its frame %(x)d,%(y)d %(w)dx%(h)d does not cover the xterm" % c),
    (c["layer"] is None or m["layer"] is None or c["layer"] > m["layer"] or c["keepAbove"], "it is on the xterm'"'"'s layer and not kept above"),
] if not ok]
if problems:
    sys.exit("; ".join(problems) + ": " + json.dumps([c, m]))
print("cover %(x)d,%(y)d %(w)dx%(h)d, layer %(layer)s, keepAbove %(keepAbove)s, stacked #%(index)d" % c
      + " over the xterm (%(w)dx%(h)d, layer %(layer)s, #%(index)d)" % m)'
covered() { kw_stacking | COVER_PID=$overlay_pid python3 -c "$cover_check"; }
fx_wait 5 covered >/dev/null || fail "KWin does not have the cover over the xterm: $(kw_stacking | COVER_PID=$overlay_pid python3 -c "$cover_check" 2>&1)"
how=$(covered)
cover_active() { kw_stacking | python3 -c 'import json, sys; sys.exit(0 if any(r["pid"] == int(sys.argv[1]) and r["active"] for r in json.loads(sys.stdin.read())) else 1)' "$overlay_pid"; }
fx_wait 3 cover_active || fail "the cover does not hold the focus: $(kw_active) is active"
[ "$(status 'str((s["foreground"] or {}).get("app")).lower()')" = blockermeter ] || fail "with the cover up, blockerd sees $(front) in front"
ok "4. at zero, KWin 6's own state: $how; the cover holds the focus (no screenshot without OpenGL here)"

# 5. The cover's own form lifts it. Keys cannot be typed into a Wayland
# surface on KWin here (no virtual keyboard a test may use), so this is the
# cover as an X11 window on Xwayland, as on Plasma's X11 session (the script
# pins it and gives it the focus), typed into with xdotool; the layer-shell
# form takes typed reps on sway (itest-overlay-sway.sh).
fx_stop "$overlay_pid"
GDK_BACKEND=x11 DISPLAY=$kw_display "${kw_in_netns[@]}" "$bin/blocker-overlay" >"$fx_dir/overlay-x11.log" 2>&1 &
overlay_pid=$!
fx_track $overlay_pid
fx_wait 10 grep -qsi "shown over blockermeter" "$fx_dir/overlay-x11.log" || fail "the X11 cover did not show"
fx_wait 5 eval '[ "$(kw_active)" = blocker-overlay ]' || fail "the X11 cover does not get the focus: $(kw_active) is active"
earned=$(grep -c "event=earn" "$fx_dir/blockerd.log" || true)
DISPLAY=$kw_display kw_session xdotool type --delay 30 4
DISPLAY=$kw_display kw_session xdotool key Return
fx_wait 5 eval '[ "$(grep -c "event=earn" "$fx_dir/blockerd.log")" -gt "$earned" ]' \
    || fail "4 reps + Enter in the cover earned nothing: $(tail -n 3 "$fx_dir/overlay-x11.log")"
grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1 | grep -q "reps=4 " \
    || fail "the earning was not 4 reps: $(grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1)"
fx_wait 5 eval '[ "$(status "s[\"shield\"][\"active\"]")" = False ]' || fail "the shield stayed up after earning"
gone() { ! kw_stacking | python3 -c 'import json, sys; sys.exit(0 if any(r["pid"] == int(sys.argv[1]) and r["visible"] for r in json.loads(sys.stdin.read())) else 1)' "$overlay_pid"; }
fx_wait 5 gone || fail "KWin still shows the cover after earning: $(kw_stacking)"
ok "5. 4 reps + Enter typed into the cover's form (X11 cover on KWin 6's Xwayland) earned; the shield went down and KWin no longer shows the cover"

# 6. blockerctl probe beside blockerd; a reload of [daemon] keeps the probe.
ctl earn 20 pushups >/dev/null || fail "blockerctl earn failed"
probe_out=$(XDG_CURRENT_DESKTOP=KDE ctl probe --config "$fx_dir/blocker.toml" 2>&1) || fail "blockerctl probe beside blockerd failed: $probe_out"
grep -q "blockerd's kde probe answers" <<<"$probe_out" || fail "blockerctl probe does not say blockerd answers: $probe_out"
probe_json=$(XDG_CURRENT_DESKTOP=KDE ctl probe --json --config "$fx_dir/blocker.toml") || fail "blockerctl probe --json beside blockerd failed"
python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(0 if j["source"] == "blockerd" and str(j["app"]).lower() == "blockermeter" else 1)' \
    "$probe_json" || fail "blockerctl probe --json: $probe_json"
sed -i 's/^poll-interval = .*/poll-interval = "2s"/' "$fx_dir/blocker.toml"
ctl reload >/dev/null || fail "blockerctl reload failed"
# The new probe asks the script for a report as it opens: seeing again within moments.
fx_wait 5 eval '[ "$(status "s[\"probe\"][\"name\"], s[\"probe\"][\"ok\"]")" = "kde True" ]' \
    || fail "after the reload the probe is $(status 's["probe"]')"
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo|"' || fail "after the reload blockerd does not hear the focus change: $(front)"
kw_activate meter-one || fail "KWin did not activate the xterm"
fx_wait 5 front_is "blockermeter|a new title|$kw_xterm_pid" || fail "after the reload blockerd does not hear the xterm: $(front)"
ok "6. blockerctl probe answers with blockerd's kde probe (says so; --json source blockerd); a reload of [daemon] keeps it seeing"

# 7. The script unloaded: blockerd knows within seconds; nothing charged; loaded again: back.
balance=$(status 's["balance_ms"]')
sleep 1.5
[ "$(status 's["balance_ms"]')" -lt "$balance" ] || fail "the metered xterm is not being charged before the script goes (the control)"
kw_scripting unloadScript s blocker >/dev/null
t0=$(date +%s%N)
probe_down() { [ "$(status 's["probe"]["ok"]')" = False ]; }
fx_wait 5 eval '! kw_script_loaded blocker' || fail "KWin still has the script loaded after unloadScript"
unloaded=$(( ($(date +%s%N) - t0) / 1000000 ))
fx_wait 12 probe_down || fail "blockerd did not notice the KWin script was unloaded: $(status 's["probe"]')"
noticed=$(( ($(date +%s%N) - t0) / 1000000 ))
# The probe asks KWin every 3 s: a few seconds at most, with room for a loaded
# machine (it was 10–11 s when a reload's new probe went unwatched).
[ "$noticed" -le 8000 ] || fail "blockerd took $noticed ms to notice the unloaded script (it asks every 3 s)"
error=$(status 's["probe"]["error"]')
grep -q "KWin Scripts" <<<"$error" || fail "the probe's error does not name the fix: $error"
[ "$(status 's["foreground"]')" = None ] || fail "with the script gone blockerd still has a foreground: $(front)"
balance=$(status 's["balance_ms"]')
sleep 2.5
[ "$(status 's["balance_ms"]')" -eq "$balance" ] || fail "blockerd charged with its script gone ($balance → $(status 's["balance_ms"]') ms)"
fx_wait 5 grep -q "event=probe-error" "$fx_dir/blockerd.log" || fail "no probe-error event in blockerd's log"
kw_session env HOME="$HOME" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" \
    PATH=/usr/bin:/bin bash "$fx_dir/src/scripts/install-kwin-script.sh" install >>"$fx_dir/install.log" 2>&1 \
    || fail "install-kwin-script.sh install again: $(tail -n 3 "$fx_dir/install.log")"
fx_wait 10 eval '! probe_down' || fail "blockerd did not recover when the script came back: $(status 's["probe"]')"
fx_wait 5 front_is "blockermeter|a new title|$kw_xterm_pid" || fail "after the script came back blockerd does not see the xterm: $(front)"
history=$(ctl history --days 1) || fail "blockerctl history failed"
grep -q "probe blind" <<<"$history" || fail "history does not show the blind time: $history"
ok "7. the script unloaded: probe not ok after ${noticed} ms (KWin said it was unloaded after ${unloaded} ms), no foreground, nothing charged, probe-error logged; loaded again: back; history: $(grep -o 'probe blind [0-9a-z ]*' <<<"$history" | head -n 1)"
# 8. The pause before opening: "Not now" has KWin 6 minimize the xterm.
printf '\n[pause]\nseconds = 2\nafter = "2s"\n' >>"$fx_dir/blocker.toml"
ctl reload >/dev/null || fail "blockerctl reload with [pause] failed"
kw_activate gtk3-demo || fail "KWin did not activate gtk3-demo"
fx_wait 5 eval 'front | grep -q "^gtk3-demo|"' || fail "the switch to gtk3-demo is not reported: $(front)"
sleep 2.5
kw_activate meter-one blocker-overlay || fail "the pause cover did not take the focus: $(kw_active) is active"
fx_wait 3 eval '[ "$(kw_shield_reason)" = pause ]' || fail "no pause when the xterm came back: $(kw_shield_reason)"
paused_at=$(status 's["balance_ms"]')
sleep 1
[ "$(status 's["balance_ms"]')" = "$paused_at" ] || fail "the pause was charged: $paused_at → $(status 's["balance_ms"]') ms"
[ "$(kw_minimized meter-one)" = false ] || fail "the xterm is minimized before any answer: $(kw_minimized meter-one)"
kw_answer_pause false >/dev/null || fail "AnswerPause(false) was refused"
[ "$(kw_not_now)" = "[1]" ] || fail "Not now was not recorded at once: $(kw_not_now)"
fx_wait 3 eval '[ "$(kw_minimized meter-one)" = true ]' \
    || fail "Not now did not minimize the xterm: $(kw_minimized meter-one); $(grep -i 'not now' "$fx_dir/blockerd.log" | tail -n 2)"
fx_wait 3 eval '[ "$(kw_shield_reason)" = down ]' || fail "the pause stayed with the xterm minimized: $(kw_shield_reason), $(front) in front"
[ "$(status 's["balance_ms"]')" = "$paused_at" ] || fail "the pause was charged: $paused_at → $(status 's["balance_ms"]') ms"
ok "8. the pause on KWin 6: nothing charged; Not now had KWin minimize the xterm, recorded at once"

ok "pass in $((SECONDS - started)) s"
