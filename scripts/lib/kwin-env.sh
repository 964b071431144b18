# shellcheck shell=bash
# kwin-env.sh — a real KWin (Wayland, virtual output, Xwayland) on a
# private session bus, for itest-kde.sh and bench-kde.sh (the host's KWin
# 5.27) and itest-kde6.sh (KWin 6 in the Debian 13 chroot: KW_CHROOT),
# sourced after fixtures.sh's fx_begin.
#
# KW_CHROOT=DIR: KWin and its clients run in the Debian 13 chroot DIR
# (scripts/trixie.sh) in a network namespace of their own (Xwayland's abstract
# socket cannot meet the host's X servers); blockerd, blockerctl and
# blocker-overlay are the host's build, on the same session bus and Wayland
# socket. $fx_dir is bound into the chroot at the same path, so every path
# means the same on both sides. The test-only scripts below speak both KWin
# 5's (clientList, activeClient) and KWin 6's (windowList, activeWindow) API.
#
# /usr/bin/kwin_wayland carries the file capability cap_sys_resource=ep, which
# this sandbox's bounding set lacks (exec fails: "Operation not permitted"). A
# copy made with plain `cp` has none; KWin looks itself up by that name, so the
# copy keeps it. It needs no system bus. Everything runs in $fx_dir with a
# HOME, XDG_RUNTIME_DIR and session bus of its own.

kw_kwin_pid=
kw_display=
kw_chroot=${KW_CHROOT:-}
# The prefix that runs a command where KWin runs (nothing on the host).
kw_in_session=()
# The prefix that runs a host program in KWin's network namespace, where
# Xwayland's abstract socket is (a host X11 client of KWin's Xwayland).
kw_in_netns=()
# shellcheck source=trixie-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/trixie-env.sh"

# kw_init — the scratch home and runtime dir, the session bus; exports the session's variables.
kw_init() {
    mkdir -p "$fx_dir/home" "$fx_dir/kwin"
    mkdir -m 0700 "$fx_dir/runtime" "$fx_dir/state"
    unset DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE XDG_CONFIG_HOME XDG_DATA_HOME XDG_DATA_DIRS
    export HOME=$fx_dir/home XDG_RUNTIME_DIR=$fx_dir/runtime XDG_CURRENT_DESKTOP=KDE NO_AT_BRIDGE=1 LANG=C.UTF-8
    [ -z "$kw_chroot" ] || kw_enter_chroot
    fx_start_bus
}

# kw_enter_chroot — into KW_CHROOT (trixie-env.sh's tx_enter; left from the EXIT trap).
kw_enter_chroot() {
    tx_enter "$kw_chroot"
    kw_in_netns=("${tx_in_netns[@]}")
    kw_in_session=("${tx_in_chroot[@]}")
}

# kw_session COMMAND… — COMMAND where KWin runs, in the foreground (in the
# background, expand "${kw_in_session[@]}" instead: $! is then its own PID).
kw_session() { "${kw_in_session[@]}" "$@"; }

kw_bus() { busctl --address="$DBUS_SESSION_BUS_ADDRESS" "$@"; }
# NameHasOwner, not `busctl status`: that one needs the peer's credentials,
# which a chroot or container may not give.
kw_has_owner() { [ "$(kw_bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$1" 2>/dev/null)" = "b true" ]; }
kw_scripting() { kw_bus call org.kde.KWin /Scripting org.kde.kwin.Scripting "$@"; }
kw_script_loaded() { [ "$(kw_scripting isScriptLoaded s "$1" 2>/dev/null)" = "b true" ]; }

# kw_start_kwin — KWin with Xwayland on the socket wayland-blocker; sets
# kw_display (Xwayland's DISPLAY).
kw_start_kwin() {
    cp "$kw_chroot/usr/bin/kwin_wayland" "$fx_dir/kwin/kwin_wayland"
    # KWin grants org.kde.KWin.ScreenShot2 to a program whose desktop file (found
    # by the caller's executable) lists it, as Spectacle's does: a test-only one
    # for gjs, which takes the test's screenshots (lib/kwin-shot.js).
    mkdir -p "$HOME/.local/share/applications"
    cat >"$HOME/.local/share/applications/blocker-test-screenshot.desktop" <<DESKTOP
[Desktop Entry]
Type=Application
Name=blocker test screenshots
Exec=$(readlink -f "$(command -v gjs)")
NoDisplay=true
X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2
DESKTOP
    # Its "application" writes down the session's environment: DISPLAY is
    # Xwayland's (KWin 6 starts Xwayland only when an X client connects).
    printf '#!/bin/sh\nenv >"%s.tmp" && mv "%s.tmp" "%s"\n' "$fx_dir/kwin/session.env" "$fx_dir/kwin/session.env" \
        "$fx_dir/kwin/session.env" >"$fx_dir/kwin/write-env.sh"
    chmod 755 "$fx_dir/kwin/write-env.sh"
    QT_QPA_PLATFORM=wayland "${kw_in_session[@]}" "$fx_dir/kwin/kwin_wayland" --virtual \
        --width 1280 --height 800 --no-lockscreen --no-global-shortcuts --no-kactivities --xwayland \
        --socket wayland-blocker "$fx_dir/kwin/write-env.sh" >"$fx_dir/kwin.log" 2>&1 &
    kw_kwin_pid=$!
    fx_track "$kw_kwin_pid"
    for _ in $(seq 200); do
        [ -e "$fx_dir/kwin/session.env" ] && kw_has_owner org.kde.KWin && break
        fx_alive "$kw_kwin_pid" || fail "kwin_wayland exited at start"
        sleep 0.05
    done
    kw_has_owner org.kde.KWin || fail "KWin is not on the session bus within 10 s"
    kw_display=$(sed -n 's/^DISPLAY=//p' "$fx_dir/kwin/session.env")
    [ -n "$kw_display" ] || fail "KWin gave its session no Xwayland DISPLAY: $(cat "$fx_dir/kwin/session.env")"
    export WAYLAND_DISPLAY=wayland-blocker
}

# kw_run_js NAME FILE — (re)loads a test-only KWin script and runs it. KWin
# 5.27 numbers a script by how many are loaded, so after an unload its /<id>
# may be another script's: `start` runs every loaded script not yet running.
kw_run_js() {
    kw_scripting unloadScript s "$1" >/dev/null
    local id=-1
    # KWin deletes an unloaded script from its event loop: until then the name is taken (-1).
    for _ in $(seq 40); do
        id=$(kw_scripting loadScript ss "$2" "$1" | awk '{print $2}')
        [ "${id:--1}" -ge 0 ] && break
        sleep 0.05
    done
    [ "${id:--1}" -ge 0 ] || fail "KWin refused to load the test script $2"
    kw_scripting start >/dev/null
}

# kw_activate INSTANCE [EXPECTED] — activates the window whose resourceName is
# INSTANCE through KWin's own scripting (what Alt+Tab's switcher does: the
# same Workspace activation), and waits (5 s) until KWin says EXPECTED (by
# default INSTANCE) is active.
kw_activate() {
    cat >"$fx_dir/activate.js" <<JS
// Test only: activates the window named "$1".
const wanted = (workspace.windowList ? workspace.windowList() : workspace.clientList()).filter(w => String(w.resourceName) === "$1");
if (wanted.length > 0) { if (workspace.windowList) workspace.activeWindow = wanted[0]; else workspace.activeClient = wanted[0]; }
JS
    kw_run_js blocker-test-activate "$fx_dir/activate.js"
    for _ in $(seq 100); do
        [ "$(kw_active)" = "${2:-$1}" ] && return 0
        sleep 0.05
    done
    return 1
}

# kw_log_activations — a test-only script that logs every activation to
# KWin's log as "js: blocker-test activated NAME" (NAME the resourceName, or none).
kw_log_activations() {
    cat >"$fx_dir/log.js" <<'JS'
// Test only: logs every activation.
(workspace.windowActivated || workspace.clientActivated).connect(w => print("blocker-test activated " + (w ? String(w.resourceName) : "none")));
JS
    kw_run_js blocker-test-log "$fx_dir/log.js"
}

# The activations logged so far, one name a line.
kw_activations() { sed -n 's/^js: blocker-test activated //p' "$fx_dir/kwin.log"; }

# What KWin says is active: the resourceName (or "none"), from a test-only script's log line.
kw_active() { kw_query 'active ? String(active.resourceName) : "none"'; }

# kw_minimized INSTANCE — "true" when KWin has minimized the windows whose
# resourceName is INSTANCE (comma-separated, one per window), "" for none.
kw_minimized() { kw_query "windows.filter(w => String(w.resourceName) === \"$1\").map(w => w.minimized).join(\",\")"; }

# kw_query EXPRESSION — what a test-only script says of a JavaScript
# EXPRESSION over \`windows\` (KWin's list) and \`active\` ("unknown" if it says nothing).
kw_query() {
    local mark=query-$RANDOM$RANDOM
    cat >"$fx_dir/query.js" <<JS
// Test only: prints one value for the test.
const windows = workspace.windowList ? workspace.windowList() : workspace.clientList();
const active = workspace.windowList ? workspace.activeWindow : workspace.activeClient;
print("$mark " + String($1));
JS
    kw_run_js blocker-test-query "$fx_dir/query.js"
    for _ in $(seq 40); do
        if grep -q "js: $mark" "$fx_dir/kwin.log" 2>/dev/null; then
            grep -m1 "js: $mark" "$fx_dir/kwin.log" | sed "s/.*$mark //; s/.*$mark\$//"
            return 0
        fi
        sleep 0.025
    done
    echo unknown
}

# kw_wait_window INSTANCE — until KWin manages a window named INSTANCE (10 s).
kw_wait_window() { fx_wait 10 kw_has_window "$1"; }
kw_has_window() { [ "$(kw_query "windows.some(w => String(w.resourceName) === \"$1\")")" = true ]; }

# kw_xterm INSTANCE [ARGS…] — an xterm on Xwayland of class BlockerMeter and
# instance INSTANCE, magenta all over (easy to find in a screenshot); prints its pid.
kw_xterm() {
    local instance=$1
    shift
    DISPLAY=$kw_display "${kw_in_session[@]}" xterm -class BlockerMeter -name "$instance" -T "$instance" -bg magenta -fg magenta \
        -geometry 210x62+0+0 "$@" >>"$fx_dir/xterm.log" 2>&1 &
    echo $!
}

# kw_open_clients INSTANCE — gtk3-demo (Wayland) and a kw_xterm INSTANCE
# (Xwayland), tracked, once KWin manages both; the xterm's pid in kw_xterm_pid.
kw_open_clients() {
    "${kw_in_session[@]}" gtk3-demo >"$fx_dir/gtk3-demo.log" 2>&1 &
    fx_track $!
    kw_wait_window gtk3-demo || fail "gtk3-demo did not map on KWin"
    kw_xterm_pid=$(kw_xterm "$1")
    fx_track "$kw_xterm_pid"
    kw_wait_window "$1" || fail "xterm did not map on KWin's Xwayland ($kw_display)"
}

# kw_shot PNG — KWin's screenshot of the whole workspace as PNG.
kw_shot() {
    local raw=$fx_dir/shot.bgra size
    size=$(gjs "$(dirname "${BASH_SOURCE[0]}")/kwin-shot.js" "$raw" 2>>"$fx_dir/shot.log") || fail "KWin's ScreenShot2 gave no picture"
    read -r width height stride <<<"$size"
    [ "$stride" -eq $((width * 4)) ] || fail "unexpected screenshot stride $stride for width $width"
    convert -size "${width}x${height}" -depth 8 "bgra:$raw" -alpha off "$1"
}

# Percentage (0–100) of PNG's pixels within 15% of magenta: the xterms' colour.
kw_magenta_percent() {
    convert "$1" -fuzz 15% -fill black +opaque magenta -fill white -opaque magenta -format '%[fx:int(mean*100)]' info:
}

# kw_start_blockerd BIN — blockerd (BIN/blockerd) with the kde probe on
# $fx_dir/blocker.toml (a metered group "meter": the xterms' class
# BlockerMeter; pushups 3 s a rep), and a fake org.freedesktop.ScreenSaver
# beside it: kscreenlocker cannot run on a virtual KWin, and blockerd follows
# the fake as it does kscreenlocker. `echo lock >&7` / `echo unlock >&7`
# drive it. Both tracked; blockerd's PID in kw_blockerd_pid, once it answers.
kw_blockerd_pid=
kw_start_blockerd() {
    local bin=$1 _
    cat >"$fx_dir/blocker.toml" <<'TOML'
[daemon]
probe = "kde"
poll-interval = "1s"
[earn]
pushups = 0.05
[[group]]
name = "meter"
apps = ["blockermeter"]
TOML
    mkfifo "$fx_dir/saver.in"
    gjs "$(dirname "${BASH_SOURCE[0]}")/fake-screensaver.js" <"$fx_dir/saver.in" >"$fx_dir/saver.log" 2>&1 &
    fx_track $!
    exec 7>"$fx_dir/saver.in"
    fx_wait 5 grep -q owns "$fx_dir/saver.log" || fail "the fake screen saver did not start"
    "$bin/blockerd" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/state" >"$fx_dir/blockerd.log" 2>&1 &
    kw_blockerd_pid=$!
    fx_track "$kw_blockerd_pid"
    fx_wait 10 eval '"$bin/blockerctl" status >/dev/null 2>&1' || fail "blockerd does not answer"
}

# What the KDE tests share: blockerctl (from fixtures.sh's $bin), and a
# Python expression over `s`, `blockerctl status --json`.
ctl() { "$bin/blockerctl" "$@"; }
status() { ctl status --json | fx_json "$1"; }

# The pause before opening (group "meter"): the shield's reason ("down" when
# none), AnswerPause as the cover's buttons call it, today's "Not now" count.
kw_shield_reason() { status 's["shield"].get("reason", "") if s["shield"]["active"] else "down"'; }
kw_answer_pause() { kw_bus call io.github.blockerd.Blocker1 /io/github/blockerd/Blocker1 io.github.blockerd.Blocker1 AnswerPause sbs meter "$1" ""; }
kw_not_now() { ctl history --days 1 --json | fx_json '[r["not_now"] for d in s for r in d["opens"] if r["group"] == "meter"]'; }
