# shellcheck shell=bash
# gnome-env.sh — a real headless GNOME Shell (Wayland) for itest-gnome.sh
# and bench-gnome.sh (GNOME Shell 43, the host's) and itest-gnome48.sh
# (GNOME Shell 48, in the Debian 13 chroot: GE_CHROOT, see ge_init), sourced
# after fixtures.sh's fx_begin.
#
# As the unprivileged user $ge_user (GNOME Shell, like sway, is run as a
# normal user): a fresh HOME and XDG_RUNTIME_DIR in $fx_dir, blocker installed
# into that HOME by `make install-files` (from a copy of the tree: CI's clone
# is readable by root only), the test-only driver extension
# (scripts/lib/gnome-test-extension: focus, lock, keys, screenshots over
# io.github.blockerd.Test) beside it, both enabled BEFORE the shell starts
# (Wayland loads new extensions only at login), a private system bus (the
# shell exits without one), a private session bus with no service
# directories (nothing is started on demand), then
# `gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800`.
#
# Every process carries fixtures.sh's $fx_marker in its environment: the
# EXIT trap (fx_cleanup) stops the tracked ones by PID and then any marked one
# left (a client the shell started), then leaves the chroot (tx_leave).
#
# Binaries come from BLOCKER_BIN (default: `swift build --show-bin-path`).

ge_user=blocker-gnome
ge_uid=
ge_gid=
ge_home=
ge_runtime=
ge_bin=
ge_shell_pid=
ge_blockerd_pid=
# GE_CHROOT=DIR: the shell, its buses and clients run in the Debian 13 chroot
# DIR (scripts/trixie.sh) in a network namespace of their own (its Xwayland's
# abstract socket cannot meet the host's X servers); blockerd and blockerctl
# are the host's build, on the same session bus. $fx_dir is bound into the
# chroot at the same path, so every path means the same on both sides.
ge_chroot=${GE_CHROOT:-}
ge_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=trixie-env.sh
source "$ge_repo/scripts/lib/trixie-env.sh"

# ge_init — the user, the directories, the copies; exports nothing global yet.
ge_init() {
    fx_programs blockerd blockerctl blocker-overlay
    ge_bin=$bin
    local needed=(gnome-shell gjs gsettings dbus-daemon dbus-run-session gdbus setpriv useradd make python3)
    [ -z "$ge_chroot" ] || needed=(gdbus setpriv useradd nsenter unshare python3)
    fx_need "${needed[@]}"
    id -u "$ge_user" >/dev/null 2>&1 || useradd -m -s /usr/sbin/nologin "$ge_user"
    ge_uid=$(id -u "$ge_user") ge_gid=$(id -g "$ge_user")
    [ -z "$ge_chroot" ] || ge_enter_chroot
    fx_marked
    chmod 0755 "$fx_dir"
    ge_home=$fx_dir/home ge_runtime=$fx_dir/runtime
    mkdir -m 0700 "$ge_home" "$ge_runtime"
    mkdir -m 0777 "$fx_dir/shots"
    # What the user runs comes from copies it can read.
    mkdir -p "$fx_dir/src/bin" "$fx_dir/src/docs"
    cp -r "$ge_repo/Makefile" "$ge_repo/README.md" "$ge_repo/scripts" "$ge_repo/extensions" "$ge_repo/config" \
        "$ge_repo/systemd" "$ge_repo/data" "$ge_repo/po" "$fx_dir/src/"
    cp -r "$ge_repo/docs/man" "$fx_dir/src/docs/"
    cp "$ge_bin/blockerd" "$ge_bin/blockerctl" "$ge_bin/blocker-overlay" "$fx_dir/src/bin/"
    chown -R "$ge_uid:$ge_gid" "$ge_home" "$ge_runtime" "$fx_dir/src" "$fx_dir/shots"
    ge_bin=$fx_dir/src/bin
    ge_host_as_user=(setpriv --reuid="$ge_uid" --regid="$ge_gid" --clear-groups -- env -i HOME="$ge_home"
        USER="$ge_user" LOGNAME="$ge_user" SHELL=/bin/sh PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
        XDG_RUNTIME_DIR="$ge_runtime" DBUS_SESSION_BUS_ADDRESS="unix:path=$ge_runtime/bus"
        DBUS_SYSTEM_BUS_ADDRESS="unix:path=$ge_runtime/system_bus" WAYLAND_DISPLAY=wayland-0
        GDK_BACKEND=wayland NO_AT_BRIDGE=1 "$fx_marker")
    ge_as_user=("${ge_host_as_user[@]}")
    [ -z "$ge_chroot" ] || ge_as_user=("${tx_in_chroot[@]}" "${ge_host_as_user[@]}")
}

# ge_enter_chroot — into GE_CHROOT (trixie-env.sh's tx_enter), with the
# user (same uid and gid) in its passwd.
ge_enter_chroot() {
    tx_enter "$ge_chroot"
    # The shell builds its lock screen only on a systemd machine (LoginManager's
    # haveSystemd: /run/systemd/seats) with a display manager; the chroot's /run is empty.
    mkdir -p "$ge_chroot/run/systemd/seats"
    chroot "$ge_chroot" getent group "$ge_gid" >/dev/null || chroot "$ge_chroot" groupadd -g "$ge_gid" "$ge_user"
    chroot "$ge_chroot" getent passwd "$ge_uid" >/dev/null \
        || chroot "$ge_chroot" useradd -M -d /nonexistent -u "$ge_uid" -g "$ge_gid" -s /usr/sbin/nologin "$ge_user"
}

# The prefix that runs blockerd and blockerctl as the test user, on the host
# (the same as ge_as_user without a chroot). Set by ge_init.
ge_host_as_user=()

# The prefix that runs a command as the test user, in its session (env -i:
# nothing of ours leaks in). Set by ge_init.
ge_as_user=()

# ge_run COMMAND… — as the test user, in the foreground.
ge_run() { "${ge_as_user[@]}" "$@"; }

# ge_spawn LOG COMMAND… — as the test user, in the background, tracked;
# ge_spawned is its PID (the program's own: setpriv and env exec it).
ge_spawn() {
    local log=$1
    shift
    "${ge_as_user[@]}" "$@" >>"$log" 2>&1 &
    ge_spawned=$!
    fx_track "$ge_spawned"
}

# ge_install — `make install-files` as the user (in a session bus of its own, so
# gsettings writes reach dconf), then the test driver extension, enabled too.
ge_install() {
    ge_run env -u DBUS_SESSION_BUS_ADDRESS dbus-run-session -- sh -c '
        make --no-print-directory -C "$1/src" install-files BINSRC="$1/src/bin" || exit 1
        test=blocker-test@blockerd.github.io
        dir=$HOME/.local/share/gnome-shell/extensions/$test
        sh "$1/src/scripts/lib/gnome-test-extension/install.sh" "$dir" 43 || exit 1
        list=$(gsettings get org.gnome.shell enabled-extensions)
        gsettings set org.gnome.shell enabled-extensions "${list%]}, '"'"'$test'"'"']"
        # No welcome tour, no screen blanking during the test; no key repeat:
        # on a loaded machine a typed key released late repeats ("2" became 22 reps).
        gsettings set org.gnome.shell welcome-dialog-last-shown-version "999"
        gsettings set org.gnome.desktop.session idle-delay 0
        gsettings set org.gnome.desktop.peripherals.keyboard repeat false
        gsettings get org.gnome.shell enabled-extensions' sh "$fx_dir" >"$fx_dir/install.log" 2>&1 \
        || fail "make install-files as $ge_user: $(tail -n 5 "$fx_dir/install.log")"
    fx_stop_marked
}

# ge_gdbus ARGS… — gdbus on the shell's session bus, as the user.
ge_gdbus() { ge_run gdbus "$@"; }

ge_has_owner() { # NAME
    ge_gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep true >/dev/null
}

# The test driver: ge_test METHOD [ARGS…] prints the reply (gdbus text form).
ge_test() {
    local method=$1
    shift
    ge_gdbus call --session --dest io.github.blockerd.Test --object-path /io/github/blockerd/Test \
        --method "io.github.blockerd.Test.$method" "$@"
}

# ge_json METHOD EXPR — a Python expression over `j`, the JSON a driver method returns.
ge_json() {
    ge_test "$1" | python3 -c "
import ast, json, sys
j = json.loads(ast.literal_eval(sys.stdin.read().strip())[0])
print($2)"
}

# ge_start_shell [NAME=VALUE…] — both buses (the first time), then the shell
# (NAME=VALUE in its environment: LANG=fr_FR.UTF-8); one retry (1 start in 20
# hangs here). Ready when its driver extension owns io.github.blockerd.Test.
ge_start_shell() {
    # GNOME 43 runs without X11 here; GNOME 48 with Xwayland (its windows are tested too).
    local x11=(--no-x11) attempt
    [ -z "$ge_chroot" ] || x11=()
    [ -n "$ge_buses_up" ] || ge_start_buses
    for attempt in 1 2; do
        ge_spawn "$fx_dir/shell.log" env -u WAYLAND_DISPLAY -u GDK_BACKEND XDG_SESSION_TYPE=wayland \
            XDG_CURRENT_DESKTOP=GNOME "$@" gnome-shell --headless --wayland "${x11[@]}" --virtual-monitor 1280x800
        ge_shell_pid=$ge_spawned
        if fx_wait 20 ge_has_owner io.github.blockerd.Test; then
            fx_wait 5 test -S "$ge_runtime/wayland-0" || fail "GNOME Shell opened no wayland-0 socket"
            return 0
        fi
        fx_note "GNOME Shell start $attempt did not get ready; $( ((attempt == 1)) && echo retrying)"
        fx_stop "$ge_shell_pid"
    done
    fail "GNOME Shell did not start (its driver extension never took io.github.blockerd.Test)"
}

# Set once the buses and the GDM stand-in run: they outlive a shell (ge_stop_shell).
ge_buses_up=

ge_start_buses() {
    fx_bus_config "$fx_dir/system.conf" system "$ge_runtime/system_bus"
    fx_bus_config "$fx_dir/session.conf" session "$ge_runtime/bus"
    ge_spawn "$fx_dir/system-bus.log" dbus-daemon --config-file="$fx_dir/system.conf" --nofork
    ge_spawn "$fx_dir/session-bus.log" dbus-daemon --config-file="$fx_dir/session.conf" --nofork
    fx_wait 5 test -S "$ge_runtime/bus" || fail "the session bus did not start"
    fx_wait 5 test -S "$ge_runtime/system_bus" || fail "the system bus did not start"
    # The shell builds its lock screen only when a display manager answers
    # (LoginManager.canLock: org.gnome.DisplayManager's Version): a
    # python3-dbusmock stand-in for GDM on the private system bus, nothing more.
    ge_spawn "$fx_dir/gdm-mock.log" /usr/bin/python3 -m dbusmock --system org.gnome.DisplayManager \
        /org/gnome/DisplayManager/Manager org.gnome.DisplayManager.Manager
    fx_wait 10 ge_run gdbus call --system --dest org.gnome.DisplayManager --object-path /org/gnome/DisplayManager/Manager \
        --method org.freedesktop.DBus.Mock.AddProperty org.gnome.DisplayManager.Manager Version "<'43.0'>" \
        >/dev/null 2>&1 || fail "the GDM stand-in (python3-dbusmock) did not start on the system bus"
    ge_buses_up=1
}

# ge_stop_shell — the shell and what it started on its own (Xwayland), so that
# ge_start_shell starts another on the same buses. Its clients lose their
# display: stop them first.
ge_stop_shell() {
    fx_stop "$ge_shell_pid"
    fx_stop_marked
    # A killed shell leaves its socket behind: the next shell is not ready by it.
    rm -f "$ge_runtime/wayland-0" "$ge_runtime/wayland-0.lock"
}

# The shell starts in the overview, where no window gets the focus.
# Asked again until it holds: right after the start the shell may still be opening it.
ge_overview_closed() {
    ge_gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell \
        --method org.freedesktop.DBus.Properties.Set org.gnome.Shell OverviewActive '<false>' >/dev/null
    sleep 0.2
    [ "$(ge_json State "j['overview']")" = False ]
}
ge_leave_overview() {
    fx_wait 10 ge_overview_closed || fail "the overview did not close: $(ge_test State)"
}

# ge_extension_state UUID — GetExtensionInfo's state (1 enabled), or "none".
ge_extension_state() {
    ge_gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell \
        --method org.gnome.Shell.Extensions.GetExtensionInfo "$1" \
        | python3 -c "import re, sys; m = re.search(r\"'state': <([0-9.]+)>\", sys.stdin.read()); print(m.group(1) if m else 'none')"
}

# ge_client NAME COMMAND… — a Wayland client of the user's, tracked; log in $fx_dir/NAME.log.
ge_client() {
    local name=$1
    shift
    ge_spawn "$fx_dir/$name.log" env -C "$fx_dir/shots" "$@"
}

# ge_start_blockerd CONFIG [STATE_DIR] — blockerd with the gnome probe on the
# shell's bus, as the user; its state in STATE_DIR (default $fx_dir/state).
ge_start_blockerd() {
    local state=${2:-$fx_dir/state}
    mkdir -p -m 0700 "$state"
    chown "$ge_uid:$ge_gid" "$state" "$1"
    "${ge_host_as_user[@]}" "$ge_bin/blockerd" --config "$1" --state-dir "$state" --probe gnome \
        >>"$fx_dir/blockerd.log" 2>&1 &
    ge_blockerd_pid=$!
    fx_track "$ge_blockerd_pid"
    fx_wait 10 eval 'ge_ctl status >/dev/null 2>&1' || fail "blockerd does not answer on the shell's bus"
}

ge_ctl() { "${ge_host_as_user[@]}" "$ge_bin/blockerctl" "$@"; }

# ge_status EXPR — a Python expression over `s`, `blockerctl status --json`.
ge_status() {
    ge_ctl status --json | fx_json "$1"
}

# What the GNOME tests ask and do, the same on GNOME 43 and 48: the focus
# (WM_CLASS), a switch, a screenshot and its share of foot's magenta, the
# shield, the extension's cover and the lock as blockerd hears it.
focus() { ge_json State "(j['focus'] or {}).get('wm_class')"; }
activate() { # WM_CLASS — and wait until the shell has it in front
    local want=$1
    ge_test Activate "'$want'" >/dev/null
    fx_wait 5 eval '[ "$(focus)" = "$want" ]' || fail "the shell did not focus $want (focus: $(focus))"
}
magenta() { # PNG — the share of pixels that are foot's magenta (0–1)
    convert "$1" -fuzz 12% -fill black +opaque '#ff00ff' -fill white -opaque '#ff00ff' -format '%[fx:mean]' info:
}
shot() { # NAME — a screenshot through the driver, into $fx_dir/shots/NAME.png
    rm -f "$fx_dir/shots/$1.png"
    ge_test Screenshot "'$fx_dir/shots/$1.png'" | grep true >/dev/null || fail "the screenshot $1 failed"
}
shield_active() { [ "$(ge_status 's["shield"]["active"]')" = True ]; }
cover_up() { [ "$(ge_json State "j['cover_visible']")" = True ]; }
locked() { [ "$(ge_status 's["locked"]')" = True ]; }

# ge_check_pause OTHER PICTURE — the pause before opening, drawn by the
# extension (itest-gnome.sh, itest-gnome48.sh): [pause] (3 s after 2 s away,
# asking why) added to blocker.toml and reloaded, foot (blocker-meter, metered)
# back from the window OTHER (WM_CLASS, not metered) is paused and charged
# nothing, its card saved as PICTURE; Escape is "Not now" (foot minimized),
# Enter before the countdown's end nothing, after it "Open" with the reason
# typed; history has one not-now and the reason.
# The shield's reason, "down" when there is none.
ge_reason() { ge_status 's["shield"].get("reason", "") if s["shield"]["active"] else "down"'; }

# ge_check_pass — the emergency pass on the extension's cover: with [pass], a
# timed block over the metered window in front offers "Use a pass · 1 left
# this week"; pressing it lifts the block, and history counts the pass.
ge_check_pass() {
    printf '\n[pass]\nper-week = 1\nlength = "1m"\n' >>"$fx_dir/blocker.toml"
    ge_ctl reload >/dev/null || fail "blockerctl reload with [pass] failed"
    ge_ctl block meter --for 10m >/dev/null || fail "blockerctl block meter failed"
    fx_wait 3 eval '[ "$(ge_reason)" = timed-block ]' || fail "the block did not cover the metered window: $(ge_reason)"
    fx_wait 3 cover_up || fail "the extension did not draw the block's cover: $(ge_test State)"
    fx_wait 3 eval '[ "$(ge_json State "j['"'"'cover_pass_shown'"'"']")" = True ]' || fail "no pass button on the cover: $(ge_test State)"
    [ "$(ge_json State "j['cover_pass']")" = "Use a pass · 1 left this week" ] || fail "the pass button says: $(ge_test State)"
    ge_test Press "'blocker-use-pass'" | grep -q true || fail "the pass button could not be pressed: $(ge_test State)"
    fx_wait 3 eval '[ "$(ge_reason)" = down ]' || fail "the pass did not lift the block: $(ge_reason)"
    fx_wait 3 eval '! cover_up' || fail "the cover stayed after the pass"
    local passes
    passes=$(ge_ctl history --days 1 --json | fx_json '[r["passes"] for d in s for r in d["opens"] if r["group"] == "meter"]')
    [ "$passes" = "[1]" ] || fail "history's passes of meter: $passes"
    ge_ctl unblock meter >/dev/null || fail "blockerctl unblock meter failed"
}

ge_check_pause() { # OTHER PICTURE
    local other=$1 picture=$2 balance opened given
    printf '\n[pause]\nseconds = 3\nafter = "2s"\nask-reason = true\n' >>"$fx_dir/blocker.toml"
    ge_ctl reload >/dev/null || fail "blockerctl reload with [pause] failed"
    ge_ctl earn 100 pushups >/dev/null || fail "blockerctl earn failed"
    away_and_back() { activate "$other"; sleep 2.5; activate blocker-meter; }
    away_and_back
    fx_wait 3 eval '[ "$(ge_reason)" = pause ]' || fail "no pause when foot came to the front: $(ge_reason), front $(front), focus $(focus)"
    fx_wait 3 cover_up || fail "the extension did not draw the pause: $(ge_test State)"
    [ "$(ge_json State "j['cover_reason']")" = "Still want blocker-meter?" ] || fail "the pause card says: $(ge_test State)"
    [ "$(ge_json State "j['key_focus_in_cover']")" = True ] || fail "the keyboard is not in the pause card: $(ge_test State)"
    balance=$(ge_status 's["balance_ms"]')
    sleep 1.5
    [ "$(ge_status 's["balance_ms"]')" = "$balance" ] || fail "the pause was charged: $balance → $(ge_status 's["balance_ms"]') ms"
    shot pause
    cp "$fx_dir/shots/pause.png" "$picture"
    ge_test Keys "'Escape'" >/dev/null
    hidden() { [ "$(ge_json Windows "[w['hidden'] for w in j if w['wm_class'] == 'blocker-meter'][0]")" = True ]; }
    fx_wait 3 hidden || fail "Escape (Not now) did not minimize foot: $(ge_test Windows)"
    fx_wait 3 eval '[ "$(ge_reason)" = down ]' || fail "the shield stayed up after Not now: $(ge_reason)"
    away_and_back
    fx_wait 3 eval '[ "$(ge_reason)" = pause ]' || fail "no pause when foot came back: $(ge_reason)"
    fx_wait 3 cover_up || fail "the extension did not draw the second pause"
    ge_test Keys "'type:bored Return'" >/dev/null
    sleep 0.5
    [ "$(ge_reason)" = pause ] || fail "Enter before the countdown's end opened it: $(ge_reason)"
    sleep 3
    ge_test Keys "'Return'" >/dev/null
    fx_wait 3 eval '[ "$(ge_reason)" = down ]' || fail "Enter after the countdown did not open it: $(ge_reason) $(ge_test State)"
    fx_wait 3 eval '! cover_up' || fail "the cover stayed after Open"
    opened=$(ge_status 's["balance_ms"]')
    sleep 2
    [ "$(ge_status 's["balance_ms"]')" -lt "$opened" ] || fail "opened, but not charged"
    given=$(ge_ctl history --days 1 --json | fx_json '[(r["not_now"], r["reasons"]) for d in s for r in d["opens"] if r["group"] == "meter"]')
    [ "$given" = "[(1, ['bored'])]" ] || fail "history's opens of meter: $given"
}
