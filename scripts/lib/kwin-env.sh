# shellcheck shell=bash
# kwin-env.sh — a real KWin 5.27 (Wayland, virtual output, Xwayland) on a
# private session bus, for itest-kde.sh and bench-kde.sh (sourced after
# fixtures.sh's fx_begin).
#
# /usr/bin/kwin_wayland carries the file capability cap_sys_resource=ep, which
# this sandbox's bounding set lacks (exec fails: "Operation not permitted"). A
# copy made with plain `cp` has none; KWin looks itself up by that name, so the
# copy keeps it. It needs no system bus. Everything runs in $fx_dir with a
# HOME, XDG_RUNTIME_DIR and session bus of its own.

kw_kwin_pid=
kw_display=

# kw_init — the scratch home and runtime dir, the session bus; exports the session's variables.
kw_init() {
    mkdir -p "$fx_dir/home" "$fx_dir/kwin"
    mkdir -m 0700 "$fx_dir/runtime" "$fx_dir/state"
    unset DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE XDG_CONFIG_HOME XDG_DATA_HOME XDG_DATA_DIRS
    export HOME=$fx_dir/home XDG_RUNTIME_DIR=$fx_dir/runtime XDG_CURRENT_DESKTOP=KDE NO_AT_BRIDGE=1 LANG=C.UTF-8
    local address pid
    read -r address pid < <(fx_session_bus "$fx_dir") || fail "dbus-daemon did not start"
    fx_track "$pid"
    export DBUS_SESSION_BUS_ADDRESS=$address
}

kw_bus() { busctl --address="$DBUS_SESSION_BUS_ADDRESS" "$@"; }
kw_scripting() { kw_bus call org.kde.KWin /Scripting org.kde.kwin.Scripting "$@"; }
kw_script_loaded() { [ "$(kw_scripting isScriptLoaded s "$1" 2>/dev/null)" = "b true" ]; }

# kw_start_kwin — KWin with Xwayland on the socket wayland-blocker; sets
# kw_display (Xwayland's DISPLAY).
kw_start_kwin() {
    cp /usr/bin/kwin_wayland "$fx_dir/kwin/kwin_wayland"
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
    QT_QPA_PLATFORM=wayland "$fx_dir/kwin/kwin_wayland" --virtual \
        --width 1280 --height 800 --no-lockscreen --no-global-shortcuts --no-kactivities --xwayland \
        --socket wayland-blocker >"$fx_dir/kwin.log" 2>&1 &
    kw_kwin_pid=$!
    fx_track "$kw_kwin_pid"
    local xwayland=
    for _ in $(seq 200); do
        xwayland=$(pgrep -P "$kw_kwin_pid" -x Xwayland || true)
        [ -n "$xwayland" ] && kw_bus status org.kde.KWin >/dev/null 2>&1 && break
        fx_alive "$kw_kwin_pid" || fail "kwin_wayland exited at start"
        sleep 0.05
    done
    [ -n "$xwayland" ] || fail "KWin started no Xwayland within 10 s"
    kw_display=$(tr '\0' '\n' <"/proc/$xwayland/cmdline" | grep -m1 '^:[0-9]')
    [ -n "$kw_display" ] || fail "cannot tell Xwayland's display from its command line"
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
const wanted = workspace.clientList().filter(w => String(w.resourceName) === "$1");
if (wanted.length > 0) workspace.activeClient = wanted[0];
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
workspace.clientActivated.connect(w => print("blocker-test activated " + (w ? String(w.resourceName) : "none")));
JS
    kw_run_js blocker-test-log "$fx_dir/log.js"
}

# The activations logged so far, one name a line.
kw_activations() { sed -n 's/^js: blocker-test activated //p' "$fx_dir/kwin.log"; }

# What KWin says is active: the resourceName (or "none"), from a test-only script's log line.
kw_active() {
    local mark=active-$RANDOM$RANDOM
    cat >"$fx_dir/query.js" <<JS
// Test only: says which window is active.
const active = workspace.activeClient;
print("$mark " + (active ? String(active.resourceName) : "none"));
JS
    kw_run_js blocker-test-query "$fx_dir/query.js"
    for _ in $(seq 40); do
        grep -m1 "js: $mark " "$fx_dir/kwin.log" 2>/dev/null | sed "s/.*$mark //" | grep . && return 0
        sleep 0.025
    done
    echo unknown
}

# kw_wait_window INSTANCE — until KWin manages a window named INSTANCE (10 s).
kw_wait_window() {
    local mark=window-$RANDOM$RANDOM
    cat >"$fx_dir/window.js" <<JS
// Test only: says whether a window named "$1" is managed.
print("$mark " + workspace.clientList().some(w => String(w.resourceName) === "$1"));
JS
    for _ in $(seq 40); do
        kw_run_js blocker-test-window "$fx_dir/window.js"
        sleep 0.25
        grep -q "js: $mark true" "$fx_dir/kwin.log" && return 0
    done
    return 1
}

# kw_xterm INSTANCE [ARGS…] — an xterm on Xwayland of class BlockerMeter and
# instance INSTANCE, magenta all over (easy to find in a screenshot); prints its pid.
kw_xterm() {
    local instance=$1
    shift
    DISPLAY=$kw_display xterm -class BlockerMeter -name "$instance" -T "$instance" -bg magenta -fg magenta \
        -geometry 210x62+0+0 "$@" >>"$fx_dir/xterm.log" 2>&1 &
    echo $!
}

# kw_open_clients INSTANCE — gtk3-demo (Wayland) and a kw_xterm INSTANCE
# (Xwayland), tracked, once KWin manages both; the xterm's pid in kw_xterm_pid.
kw_open_clients() {
    gtk3-demo >"$fx_dir/gtk3-demo.log" 2>&1 &
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
