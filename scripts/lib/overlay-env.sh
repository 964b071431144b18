# shellcheck shell=bash
# overlay-env.sh — the whole blocker chain on real servers, for
# itest-overlay-x11.sh, itest-overlay-sway.sh and bench-overlay.sh (sourced).
#
# A private `dbus-daemon --session`, `blockerd` with a real probe, and
# `blocker-overlay`, under Xvfb + openbox or a headless sway. Every process
# started here is recorded and stopped by PID from the EXIT trap, newest
# first; what sway itself started (its clients) carries a marker in its
# environment and is stopped by that. Log lines are stamped with the wall
# clock in ms as they arrive, so the scripts can time what the programs say.
#
# Binaries come from BLOCKER_BIN (default: `swift build --show-bin-path`).

# shellcheck source=fixtures.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixtures.sh"

oe_name=overlay
oe_dir=
oe_bin=
oe_pids=()
oe_marker=
oe_sway_user=blocker-sway
oe_blockerd_pid=
oe_overlay_pid=

oe_init() { # NAME
    oe_name=$1
    cd "$(dirname "${BASH_SOURCE[0]}")/../.."
    oe_bin=${BLOCKER_BIN:-$(swift build --show-bin-path 2>/dev/null)}
    local program
    for program in blockerd blockerctl blocker-overlay; do
        [ -x "$oe_bin/$program" ] || { echo "$oe_name: FAIL: $oe_bin/$program is not built (swift build)" >&2; exit 1; }
    done
    oe_begin "$(mktemp -d "/tmp/blocker-$oe_name.XXXXXX")"
    # Under set -e a failing command would end the run without a word: say which.
    set -E
    trap 'oe_fail "line $LINENO: \"$BASH_COMMAND\" failed"' ERR
}

# oe_begin DIR — the run's scratch directory DIR (removed at exit; others may
# enter it, for sway's user), its marker, and everything stopped from the EXIT
# trap. oe_init calls it; a caller with its own checks (a row of
# itest-integrity.sh, in a subshell) sets oe_name and oe_bin and calls it.
oe_begin() {
    oe_dir=$1
    chmod 0755 "$oe_dir"
    mkdir -m 0700 "$oe_dir/runtime" "$oe_dir/state"
    oe_marker="BLOCKER_OVERLAY_RUN=$oe_name-$BASHPID-$RANDOM"
    oe_pids=()
    trap oe_cleanup EXIT
    # Signals end the run through the EXIT trap too (a closed pipe included:
    # `itest | head` must not leave servers behind).
    trap 'exit 130' INT TERM
    trap 'exit 129' HUP
    trap 'exit 141' PIPE
    # Nothing from the calling session leaks in: the chain uses only what is started here.
    unset DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE DBUS_SESSION_BUS_ADDRESS
    export XDG_RUNTIME_DIR=$oe_dir/runtime NO_AT_BRIDGE=1 LANG=C.UTF-8
}

oe_note() { echo "$oe_name: $*" >&2; }

oe_fail() {
    trap - ERR
    echo "$oe_name: FAIL: $*" >&2
    fx_show_logs "$oe_dir"
    exit 1
}

# Wall clock in ms (bash's own clock: no fork).
oe_now_ms() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }

# stdin → "MS LINE" as each line arrives.
oe_stamp() {
    local line us
    while IFS= read -r line; do
        us=${EPOCHREALTIME/./}
        printf '%s %s\n' $((us / 1000)) "$line"
    done
}

oe_track() { oe_pids+=("$1"); }

# SIGTERM, up to 3 s, then SIGKILL (fx_stop); forgets the pid.
oe_stop() {
    local pid=$1 p kept=()
    fx_stop "$pid"
    for p in "${oe_pids[@]}"; do [ "$p" = "$pid" ] || kept+=("$p"); done
    oe_pids=("${kept[@]}")
}

oe_stop_marked() {
    [ -n "$oe_marker" ] || return 0
    fx_kill_marked "$oe_marker"
}

oe_cleanup() {
    local status=$? i
    # Stop everything, whatever fails on the way.
    set +e
    trap - EXIT ERR
    for ((i = ${#oe_pids[@]} - 1; i >= 0; i--)); do oe_stop "${oe_pids[i]}"; done
    oe_stop_marked
    [ -n "$oe_dir" ] && rm -rf "$oe_dir"
    exit "$status"
}

# oe_wait SECONDS COMMAND… — polls every 50 ms until COMMAND succeeds.
oe_wait() {
    local seconds=$1
    shift
    local deadline=$(($(oe_now_ms) + seconds * 1000))
    until "$@"; do
        [ "$(oe_now_ms)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# --- servers ---------------------------------------------------------------

oe_start_x11() {
    local display pid
    read -r display pid < <(fx_xvfb "$oe_dir") || oe_fail "Xvfb did not start"
    oe_track "$pid"
    export DISPLAY=:$display GDK_BACKEND=x11
    pid=$(fx_openbox "$oe_dir") || oe_fail "openbox did not start on $DISPLAY"
    oe_track "$pid"
}

# Headless sway as the unprivileged user $oe_sway_user with OUTPUTS outputs.
oe_start_sway() { # OUTPUTS
    local uid gid
    id -u "$oe_sway_user" >/dev/null 2>&1 || useradd -m -s /usr/sbin/nologin "$oe_sway_user"
    uid=$(id -u "$oe_sway_user") gid=$(id -g "$oe_sway_user")
    local runtime=$oe_dir/sway-runtime
    mkdir -m 0700 "$runtime"
    echo "xwayland disable" >"$runtime/config"
    chown -R "$uid:$gid" "$runtime"
    env -i HOME="/home/$oe_sway_user" USER="$oe_sway_user" LOGNAME="$oe_sway_user" SHELL=/bin/sh \
        PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 XDG_RUNTIME_DIR="$runtime" \
        WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS="$1" \
        "$oe_marker" setpriv --reuid="$uid" --regid="$gid" --init-groups -- env -C "$runtime" sway -c "$runtime/config" \
        >"$oe_dir/sway.log" 2>&1 &
    local sway_pid=$!
    oe_track $sway_pid
    export SWAYSOCK=$runtime/sway-ipc.$uid.$sway_pid.sock
    oe_wait 10 eval 'swaymsg -t get_version >/dev/null 2>&1' || oe_fail "sway did not start"
    local socket
    socket=$(find "$runtime" -maxdepth 1 -name 'wayland-*' -type s -printf '%f\n' | head -n 1)
    [ -n "$socket" ] || oe_fail "sway opened no Wayland socket"
    # Root's clients (the overlay, grim, wtype) reach sway's socket through its runtime dir.
    export XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket GDK_BACKEND=wayland
}

# A session bus with no service directories: nothing is started on demand.
oe_start_bus() {
    local address pid
    read -r address pid < <(fx_session_bus "$oe_dir") || oe_fail "dbus-daemon did not start"
    oe_track "$pid"
    export DBUS_SESSION_BUS_ADDRESS=$address
}

# blocker.toml for the run: pushups earn PER_REP_MINUTES a rep; the app
# `blocker-meter` is metered. Extra lines go under [daemon].
oe_write_config() { # PER_REP_MINUTES [DAEMON_LINE…]
    local rate=$1
    shift
    {
        echo "[daemon]"
        echo 'poll-interval = "1s"'
        local line
        for line in "$@"; do echo "$line"; done
        echo
        echo "[earn]"
        echo "pushups = $rate"
        echo "squats = 0.5"
        echo
        echo "[[group]]"
        echo 'name = "meter"'
        echo 'apps = ["blocker-meter"]'
    } >"$oe_dir/blocker.toml"
}

# oe_open_foots APP_ID… — a foot window per app id in the running sway
# (each titled after its app id, running nothing), and waits until all map.
oe_open_foots() {
    local app
    for app in "$@"; do swaymsg exec "foot --app-id=$app --title=$app sleep infinity" >/dev/null; done
    oe__all_mapped() {
        local tree
        tree=$(swaymsg -t get_tree)
        for app in "$@"; do grep -q "\"app_id\": \"$app\"" <<<"$tree" || return 1; done
    }
    oe_wait 10 oe__all_mapped "$@" || oe_fail "the foot windows $* did not map"
}

oe_ctl() { "$oe_bin/blockerctl" "$@"; }

oe_start_blockerd() { # PROBE
    "$oe_bin/blockerd" --config "$oe_dir/blocker.toml" --state-dir "$oe_dir/state" --probe "$1" \
        > >(oe_stamp >>"$oe_dir/blockerd.log") 2>&1 &
    oe_blockerd_pid=$!
    oe_track $oe_blockerd_pid
    oe_wait 10 eval 'oe_ctl status --json >/dev/null 2>&1' || oe_fail "blockerd does not answer on the bus"
}

oe_stop_blockerd() {
    oe_stop "$oe_blockerd_pid"
    oe_blockerd_pid=
}

oe_start_overlay() {
    "$oe_bin/blocker-overlay" > >(oe_stamp >>"$oe_dir/overlay.log") 2>&1 &
    oe_overlay_pid=$!
    oe_track $oe_overlay_pid
    oe_wait 10 grep -qs "ready on" "$oe_dir/overlay.log" || oe_fail "blocker-overlay did not start"
}

# oe_expect_cover_after_zero SHOT_FUNCTION — waits for the balance to run out
# (blockerd's next shield-up) and for SHOT_FUNCTION's screenshot to change by
# 90% from before.png; says how long the cover took, and fails past 1.5 s.
oe_expect_cover_after_zero() {
    local shields seen zero shown latency
    shields=$(oe_count blockerd.log "event=shield-up")
    seen=$(oe_screen_until "$1" "$oe_dir/before.png" ge 90 12000) || seen=
    zero=$(oe_stamp_of blockerd.log "event=shield-up" $((shields + 1)))
    [ -n "$zero" ] || oe_fail "the balance never ran out (no shield-up from blockerd within 12 s)"
    [ -n "$seen" ] || oe_fail "the shield went up but the screen never changed by 90%"
    shown=$(oe_stamp_of overlay.log "shown over" '$')
    latency=$((seen - zero))
    oe_note "4. balance at zero → cover on screen: $latency ms by screenshot ($((shown - zero)) ms by the overlay's own log)"
    [ "$latency" -le 1500 ] || oe_fail "the cover took $latency ms (> 1500) after the balance reached zero"
}

# oe_expect_opaque COVER_PNG — the full-size screenshot of the cover over the
# magenta app has not one magenta-tinted pixel, while before.png (the app
# uncovered, quarter size) was at least a quarter magenta: the cover hides it, it does
# not veil it.
oe_expect_opaque() {
    local before tinted
    before=$(fx_magenta_tinted "$oe_dir/before.png")
    [ "$before" -ge $(($(identify -format '%w*%h' "$oe_dir/before.png") / 4)) ] \
        || oe_fail "the magenta app is not on screen before the cover ($before tinted pixels in before.png)"
    tinted=$(fx_magenta_tinted "$1")
    oe_note "opaque: $tinted of $(($(identify -format '%w*%h' "$1"))) pixels carry the app's magenta under the cover ($before of the quarter-size shot before it)"
    [ "$tinted" -eq 0 ] || oe_fail "the app shows through the cover: $tinted magenta-tinted pixels"
}

# oe_expect_reps_earn SHOT_FUNCTION TYPE_FUNCTION [TRAILING_MS] — the earn form
# over the app: TYPE_FUNCTION types "2" and Enter into the cover (returning
# TRAILING_MS after the Enter went out); blockerd must log an earning of 2
# pushups, and SHOT_FUNCTION's screenshot must come back to within 10% of
# before.png (the app uncovered) within 1.5 s of the Enter, the shield down.
oe_expect_reps_earn() {
    local shot=$1 type=$2 trailing=${3:-0} earned entered gone
    earned=$(oe_count blockerd.log "event=earn")
    "$type"
    entered=$(($(oe_now_ms) - trailing))
    gone=$(oe_screen_until "$shot" "$oe_dir/before.png" le 10 5000) || gone=
    [ "$(oe_count blockerd.log "event=earn")" -gt "$earned" ] || oe_fail "reps + Enter earned nothing"
    grep "event=earn" "$oe_dir/blockerd.log" | tail -n 1 | grep -q "exercise=pushups reps=2 " \
        || oe_fail "the earn was not 2 pushups: $(grep "event=earn" "$oe_dir/blockerd.log" | tail -n 1)"
    [ -n "$gone" ] || oe_fail "the cover was still on screen 5 s after reps + Enter"
    oe_note "6. reps + Enter: earned; cover gone after $((gone - entered)) ms"
    [ $((gone - entered)) -le 1500 ] || oe_fail "the cover took $((gone - entered)) ms (> 1500) to go after earning"
    ! oe_shield_active || oe_fail "the shield is still up after earning"
}

# --- reading the chain -----------------------------------------------------

# oe_status EXPR — a Python expression over `s`, the `blockerctl status --json` object.
oe_status() {
    oe_ctl status --json | python3 -c "import json, sys; s = json.load(sys.stdin); print($1)"
}

# Whether blockerd says the shield is up.
oe_shield_active() { [ "$(oe_status 's["shield"]["active"]')" = True ]; }

# Lines of LOG (blockerd.log, overlay.log) matching PATTERN, as "MS LINE".
oe_count() { grep -c -- "$2" "$oe_dir/$1" 2>/dev/null || true; }

# The stamp (ms) of the Nth line of LOG matching PATTERN, empty if none yet.
oe_stamp_of() { grep -- "$2" "$oe_dir/$1" 2>/dev/null | sed -n "${3}p" | cut -d' ' -f1; }

# Percentage (0–100) of pixels that differ between two same-size images,
# ignoring differences under 3% (anti-aliasing, a blinking cursor).
oe_diff_percent() { # A B
    local differing total
    differing=$(compare -metric AE -fuzz 3% "$1" "$2" null: 2>&1 >/dev/null) || true
    total=$(identify -format '%[fx:w*h]' "$1")
    python3 -c "print(int(float('$differing') * 100 / $total))"
}

# oe_screen_until SHOT_FN BEFORE ge|le PERCENT TIMEOUT_MS — screenshots with
# SHOT_FN until the share of pixels that differ from BEFORE is ≥ (ge) or ≤ (le)
# PERCENT; prints when that screenshot was taken (ms), or fails at the timeout.
oe_screen_until() {
    local shot=$1 before=$2 cmp=$3 percent=$4 deadline=$(($(oe_now_ms) + $5)) taken
    while [ "$(oe_now_ms)" -lt "$deadline" ]; do
        "$shot" "$oe_dir/shot.png"
        taken=$(oe_now_ms)
        if test "$(oe_diff_percent "$before" "$oe_dir/shot.png")" "-$cmp" "$percent"; then
            echo "$taken"
            return 0
        fi
        sleep 0.05
    done
    return 1
}
