# shellcheck shell=bash
# Small fixtures shared by the benchmark and integration scripts.

# --- the run: scratch directory, tracked processes, cleanup ----------------

# fx_begin NAME — a scratch directory ($fx_dir, removed at exit), `fx_track`
# for processes to stop at exit (newest first, by PID, pass or fail), and
# `fail`/`ok`/`fx_note` lines prefixed with NAME. `fail` shows the tail of
# $fx_dir/*.log. Signals (a closed pipe too: `itest | head`) end the run
# through the EXIT trap.
fx_begin() {
    fx_named "$1"
    fx_pids=()
    fx_exit_hooks=()
    fx_marker=
    fx_shell=$BASHPID
    fx_dir=$(mktemp -d "/tmp/blocker-$fx_name.XXXXXX")
    trap fx_cleanup EXIT
    trap 'exit 130' INT TERM
    trap 'exit 129' HUP
    trap 'exit 141' PIPE
}

# fx_nested NAME — in a subshell (a row of itest-integrity.sh): a scratch
# directory of its own below $fx_dir and a process list of its own, stopped
# when the subshell exits, pass or fail. $fx_shell is the shell whose list
# fx_track adds to (a $(…) inside is another one, whose list is lost).
fx_nested() {
    fx_dir=$(mktemp -d "$fx_dir/$1.XXXXXX")
    fx_shell=$BASHPID
    fx_pids=()
    fx_exit_hooks=()
    fx_marker=
    trap fx_cleanup EXIT
}

fx_track() { fx_pids+=("$@"); }

# fx_at_exit COMMAND… — run from the EXIT trap once the tracked processes are
# stopped, before the scratch directory goes (e.g. leaving a chroot).
fx_at_exit() { fx_exit_hooks+=("$*"); }

# fx_marked — sets $fx_marker, a VAR=value to put in the environment of a
# server that starts processes of its own (sway's clients, the shell's
# Xwayland, dconf-service): out of sight of fx_track, they are stopped by it.
fx_marked() { fx_marker="BLOCKER_TEST_RUN=$fx_name-$BASHPID-$RANDOM"; }

# Whether PID runs (a zombie does not).
fx_alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

# fx_stop PID — SIGTERM (so Xvfb removes its /tmp/.X*-lock), up to 3 s, then
# SIGKILL; reaps it when it is our child, and forgets it (its PID may be
# reused by the time the run ends).
fx_stop() {
    local pid=$1 p kept=()
    if kill -TERM "$pid" 2>/dev/null; then
        for _ in $(seq 60); do fx_alive "$pid" || break; sleep 0.05; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    for p in "${fx_pids[@]}"; do [ "$p" = "$pid" ] || kept+=("$p"); done
    fx_pids=("${kept[@]}")
}

# Stops every tracked process, newest first.
fx_stop_all() {
    while [ ${#fx_pids[@]} -gt 0 ]; do fx_stop "${fx_pids[-1]}"; done
}

# Kills (SIGKILL, by PID) the processes that carry $fx_marker and are not
# tracked: what a server started on its own.
fx_stop_marked() {
    [ -n "${fx_marker:-}" ] || return 0
    fx_kill_marked "$fx_marker" "${fx_pids[@]}"
}

# The EXIT trap: the tracked processes newest first, then the marked ones,
# the exit hooks, the scratch directory — whatever fails on the way. It does
# not exit: a harness that chains it (user-manager.sh's um_start) goes on.
fx_cleanup() {
    set +e
    trap - ERR
    local hook
    fx_stop_all
    fx_stop_marked
    for hook in "${fx_exit_hooks[@]}"; do eval "$hook"; done
    fx_exit_hooks=()
    [ -z "${fx_dir:-}" ] || rm -rf "$fx_dir"
}

# --- saying what happened ------------------------------------------------------

# fx_show_logs DIR — the last lines of every non-empty DIR/*.log, on stderr.
fx_show_logs() {
    local log
    for log in "$1"/*.log; do
        [ -s "$log" ] || continue
        echo "--- ${log##*/} (last lines)" >&2
        tail -n 20 "$log" >&2
    done
}

# fx_named NAME — only the `fail`/`ok` lines prefixed with NAME, for a script
# whose harness (user-manager.sh's um_enter) owns the traps and the cleanup.
fx_named() { fx_name=$1; }

# `fail` runs this command too (on stderr) before it exits: what else shows why,
# e.g. fx_on_fail=(um_systemctl status --no-pager -n 30 blockerd.service).
fx_on_fail=()

fail() {
    trap - ERR
    echo "$fx_name: FAIL: $*" >&2
    [ -z "${fx_dir:-}" ] || fx_show_logs "$fx_dir"
    if [ ${#fx_on_fail[@]} -gt 0 ]; then "${fx_on_fail[@]}" >&2 || true; fi
    # Again after the logs: a CI summary that keeps only the tail still says why.
    [ -z "${fx_dir:-}${fx_on_fail[*]}" ] || echo "$fx_name: FAIL: $*" >&2
    exit 1
}

ok() { echo "$fx_name: ok: $*"; }

# fx_note MESSAGE — a line of narration on stderr, prefixed with the name.
fx_note() { echo "$fx_name: $*" >&2; }

# fx_fail_on_error — under set -e a failing command would end the run without
# a word: `fail` says which line and command instead.
fx_fail_on_error() {
    set -E
    trap 'fail "line $LINENO: \"$BASH_COMMAND\" failed"' ERR
}

# fx_need TOOL… — fails unless every TOOL is on PATH.
fx_need() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || fail "$tool is not installed (make check installs the test dependencies)"
    done
}

# fx_programs [PROGRAM…] — sets $bin, the built programs' directory
# (BLOCKER_BIN, by default `swift build --show-bin-path` in the repository),
# and fails unless every PROGRAM is built there.
fx_programs() {
    bin=${BLOCKER_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && swift build --show-bin-path 2>/dev/null)}
    local program
    for program in "$@"; do
        [ -x "$bin/$program" ] || fail "$bin/$program is not built (swift build)"
    done
}

# fx_json EXPR — prints a Python expression over `s`, the JSON read from stdin
# (e.g. `blockerctl status --json | fx_json 's["balance_ms"]'`).
fx_json() { python3 -c "import json, sys; s = json.load(sys.stdin); print($1)"; }

# --- time and waiting ----------------------------------------------------------

# fx_zone_at_noon — exports TZ as the Etc/GMT zone where it is now about
# noon: a run that counts a local day (opens-per-day, daily limits) never
# crosses midnight, whenever it starts (one did, at 23:59:50 UTC).
fx_zone_at_noon() {
    local offset=$((12 - 10#$(date -u +%H)))
    if [ "$offset" -gt 0 ]; then export TZ=Etc/GMT-$offset
    elif [ "$offset" -lt 0 ]; then export TZ=Etc/GMT+$((-offset))
    else export TZ=Etc/UTC; fi
}

# Wall clock in ms (bash's own clock: no fork).
fx_now_ms() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }

# stdin → "MS LINE" as each line arrives (a log the scripts can time).
fx_stamp() {
    local line us
    while IFS= read -r line; do
        us=${EPOCHREALTIME/./}
        printf '%s %s\n' $((us / 1000)) "$line"
    done
}

# fx_wait SECONDS COMMAND… — runs COMMAND (a program or function) every 50 ms
# until it succeeds; 1 once SECONDS have passed.
fx_wait() {
    local deadline=$(($(fx_now_ms) + $1 * 1000))
    shift
    until "$@"; do
        [ "$(fx_now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# --- buses ---------------------------------------------------------------------

# A private session bus for this test (stopped with the rest), and an
# environment with nothing of the caller's desktop in it: blockerd and
# blockerctl see only the test's bus and home, in UTC, without colors.
fx_private_session() {
    fx_start_bus
    export TZ=UTC NO_COLOR=1 HOME=$fx_dir
    unset XDG_CONFIG_HOME XDG_STATE_HOME DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE
}

# fx_start_bus — a private session bus (fx_session_bus) in $fx_dir, tracked,
# as DBUS_SESSION_BUS_ADDRESS.
fx_start_bus() {
    local address bus_pid
    read -r address bus_pid < <(fx_session_bus "$fx_dir") || fail "dbus-daemon did not start"
    fx_track "$bus_pid"
    export DBUS_SESSION_BUS_ADDRESS=$address
}

# fx_session_bus DIR — starts a private dbus-daemon with its socket in DIR and
# prints "ADDRESS PID" (the caller stops PID). It has no service directories:
# nothing is started on demand (a notification server would draw over the
# cover, a stopped one must stay stopped, an a11y bus would linger).
fx_session_bus() {
    fx_bus_config "$1/bus.conf" session "$1/bus"
    dbus-daemon --config-file="$1/bus.conf" --fork --print-address=1 --print-pid=1 | paste -sd' '
}

# fx_xvfb DIR [SIZE] — starts Xvfb on a display it picks itself (-displayfd)
# and prints "DISPLAY_NUMBER PID" (the caller stops PID); fails after 10 s.
fx_xvfb() {
    local dir=$1 size=${2:-1280x800x24} pid
    Xvfb -displayfd 3 -screen 0 "$size" -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
    pid=$!
    for _ in $(seq 200); do [ -s "$dir/display" ] && break; sleep 0.05; done
    [ -s "$dir/display" ] || { kill -KILL "$pid" 2>/dev/null; cat "$dir/xvfb.log" >&2; return 1; }
    echo "$(head -n1 "$dir/display") $pid"
}

# fx_x_session DIR — Xvfb (fx_xvfb) and openbox (fx_openbox) for this
# script, both tracked; exports DISPLAY and unsets WAYLAND_DISPLAY.
fx_x_session() {
    local display xvfb_pid wm_pid
    read -r display xvfb_pid < <(fx_xvfb "$1") || fail "Xvfb did not start"
    fx_track "$xvfb_pid"
    export DISPLAY=":$display"
    unset WAYLAND_DISPLAY
    wm_pid=$(fx_openbox "$1") || fail "openbox did not start on $DISPLAY"
    fx_track "$wm_pid"
}

# fx_openbox DIR — starts openbox on $DISPLAY and prints its PID once it is
# ready. openbox sets _NET_SUPPORTING_WM_CHECK before it is done starting (a
# window mapped in between waits 5 s); its --startup command runs once it is.
fx_openbox() {
    local pid
    openbox --startup "xprop -root -f _BLOCKER_WM_READY 8s -set _BLOCKER_WM_READY yes" >"$1/openbox.log" 2>&1 &
    pid=$!
    # 30 s: on a loaded 2-core machine (CI once, beside a Swift build) the
    # first openbox took more than 10 s to run its startup command.
    local deadline=$((SECONDS + 30))
    while [ "$SECONDS" -lt "$deadline" ]; do
        xprop -root _BLOCKER_WM_READY 2>/dev/null | grep -q '"yes"' && { echo "$pid"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "fx_openbox: openbox (pid $pid) not ready on $DISPLAY after $((SECONDS - deadline + 30)) s; its log:" >&2
    tail -n 20 "$1/openbox.log" >&2
    kill -KILL "$pid" 2>/dev/null
    return 1
}

# fx_x_window CLASS — waits (5 s) until openbox manages a window of WM_CLASS
# CLASS and prints its id. `xdotool search` alone finds a window as soon as
# its class is set, before the window manager has mapped it; activating it
# then fails and focus stays where it was.
fx_x_window() {
    local id
    for _ in $(seq 100); do
        id=$(xdotool search --onlyvisible --class "$1" 2>/dev/null | head -1)
        [ -n "$id" ] && { echo "$id"; return 0; }
        sleep 0.05
    done
    return 1
}

# fx_x_activate ID — activates window ID and waits (10 s) until the root's
# _NET_ACTIVE_WINDOW names it. When it never does, says on stderr what the
# window manager shows of it (its state, what is active, the stacking), so a
# failure on a loaded machine can be read afterwards.
fx_x_activate() {
    local active
    for _ in $(seq 100); do
        xdotool windowactivate --sync "$1" >/dev/null 2>&1
        active=$(xdotool getactivewindow 2>/dev/null) && [ "$active" = "$1" ] && return 0
        sleep 0.1
    done
    {
        echo "fx_x_activate: window $1 never became active:"
        xprop -id "$1" WM_STATE _NET_WM_STATE WM_CLASS 2>&1
        xprop -root _NET_ACTIVE_WINDOW _NET_CLIENT_LIST_STACKING 2>&1
    } | sed 's/^/  /' >&2
    return 1
}

# fx_config FILE FRONT_JSON [PROBE] [POLL] [PUSHUP_MINUTES] — a blocker.toml
# whose command probe prints FRONT_JSON, [earn] pushups (default 0.5) and a
# metered group "social" (discord). Callers append sections of their own with >>.
fx_config() {
    mkdir -p "$(dirname "$1")"
    cat >"$1" <<TOML
[daemon]
probe = "${3:-command}"
poll-interval = "${4:-1s}"
probe-command = ["/bin/cat", "$2"]
[earn]
pushups = ${5:-0.5}
[[group]]
name = "social"
apps = ["discord"]
TOML
}

# fx_front FILE [APP] — what the command probe reports: APP in front, or nothing.
fx_front() {
    if [ -n "${2:-}" ]; then echo "{\"app\":\"$2\",\"title\":\"chat\",\"pid\":1}" >"$1"; else echo null >"$1"; fi
}

# fx_start_blockerd BIN_DIR [ARGS…] — blockerd in the background, its output
# in $fx_dir/daemon.log, tracked; sets fx_daemon_pid and waits until it answers.
fx_start_blockerd() {
    local bin=$1; shift
    "$bin/blockerd" "$@" >>"$fx_dir/daemon.log" 2>&1 &
    fx_daemon_pid=$!
    fx_track "$fx_daemon_pid"
    fx_wait_daemon "$bin" || fail "blockerd did not answer Status"
}

# fx_wait_daemon BIN_DIR — until blockerd answers `blockerctl status` (5 s).
fx_wait_daemon() {
    for _ in $(seq 50); do "$1/blockerctl" status >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

# fx_bus_config FILE TYPE SOCKET — a dbus-daemon config of TYPE (session,
# system) listening on SOCKET, letting everyone send and own anything, with
# no service directories (nothing is started on demand).
fx_bus_config() {
    cat >"$1" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>$2</type>
  <listen>unix:path=$3</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
XML
}

# fx_kill_marked MARKER [PID…] — SIGKILLs, by PID, every process whose
# environment holds MARKER (VAR=value), but this shell and the PIDs given:
# what a server started on its own, out of sight of fx_track.
fx_kill_marked() {
    local marker=$1 p pid keep
    shift
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = "$$" ] && continue
        for keep in "$@"; do [ "$keep" = "$pid" ] && continue 2; done
        if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "$marker"; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
}

# --- screenshots ---------------------------------------------------------------

# fx_diff_percent A B — the percentage (0–100) of pixels that differ between
# two same-size images, ignoring differences under 3% (anti-aliasing, a
# blinking cursor).
fx_diff_percent() {
    local differing total
    differing=$(compare -metric AE -fuzz 3% "$1" "$2" null: 2>&1 >/dev/null) || true
    total=$(identify -format '%[fx:w*h]' "$1")
    python3 -c "print(int(float('$differing') * 100 / $total))"
}

# fx_magenta_tinted PNG — how many of PNG's pixels carry magenta: red and blue
# each at least 16 above green. A magenta test window (#ff00ff) beneath a
# cover that lets even 10% of it through tints the cover's dark pane this
# way; none of the covers' own colours (dark blue-grey, white, orange, blue) do.
fx_magenta_tinted() {
    convert "$1" -alpha off -separate \
        \( -clone 0 -clone 1 -compose MinusSrc -composite -threshold 6% \) \
        \( -clone 2 -clone 1 -compose MinusSrc -composite -threshold 6% \) \
        -delete 0-2 -compose Multiply -composite -format '%[fx:int(mean*w*h+0.5)]' info:
}
