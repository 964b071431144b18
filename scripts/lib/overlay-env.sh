# shellcheck shell=bash
# overlay-env.sh — the whole blocker chain on real servers, for
# itest-overlay-x11.sh, itest-overlay-x11-composited.sh, itest-overlay-sway.sh,
# itest-media.sh, itest-log-exercise.sh, itest-waybar.sh, itest-wlroots.sh,
# bench-overlay.sh, bench-daemon-wayland.sh and integrity/rows-sway.sh (sourced).
#
# A private `dbus-daemon --session`, `blockerd` with a real probe, and
# `blocker-overlay`, under Xvfb + openbox or a headless sway. The run itself
# (scratch directory, tracked processes stopped by PID from the EXIT trap,
# `fail`, `fx_wait`) is fixtures.sh's; what sway itself started (its clients)
# carries fixtures.sh's marker and is stopped by it. Log lines are stamped
# with the wall clock in ms as they arrive (fx_stamp), so the scripts can time
# what the programs say.
#
# Binaries come from BLOCKER_BIN (default: `swift build --show-bin-path`), in $bin.

# shellcheck source=fixtures.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixtures.sh"

oe_sway_user=blocker-sway
oe_blockerd_pid=
oe_overlay_pid=

# oe_init NAME — fixtures.sh's run NAME (fx_begin), the programs checked, the
# chain's directories (oe_begin), and a failing command named by `fail`.
oe_init() {
    fx_begin "$1"
    cd "$(dirname "${BASH_SOURCE[0]}")/../.."
    fx_programs blockerd blockerctl blocker-overlay
    oe_begin
    fx_fail_on_error
}

# oe_begin — in the run's scratch directory (others may enter it, for sway's
# user) a runtime and a state directory, the marker for sway's clients, and
# nothing of the calling session. oe_init calls it; a row of
# itest-integrity.sh (in a subshell, after fx_begin) calls it itself.
oe_begin() {
    chmod 0755 "$fx_dir"
    mkdir -m 0700 "$fx_dir/runtime" "$fx_dir/state"
    fx_marked
    # Nothing from the calling session leaks in: the chain uses only what is started here.
    unset DISPLAY WAYLAND_DISPLAY SWAYSOCK HYPRLAND_INSTANCE_SIGNATURE DBUS_SESSION_BUS_ADDRESS
    export XDG_RUNTIME_DIR=$fx_dir/runtime NO_AT_BRIDGE=1 LANG=C.UTF-8
}

# --- servers ---------------------------------------------------------------

# Xvfb + openbox (fixtures.sh's fx_x_session), GTK on X11.
oe_start_x11() {
    fx_x_session "$fx_dir"
    export GDK_BACKEND=x11
}

# Headless sway as the unprivileged user $oe_sway_user with OUTPUTS outputs.
oe_start_sway() { # OUTPUTS
    local uid gid
    id -u "$oe_sway_user" >/dev/null 2>&1 || useradd -m -s /usr/sbin/nologin "$oe_sway_user"
    uid=$(id -u "$oe_sway_user") gid=$(id -g "$oe_sway_user")
    local runtime=$fx_dir/sway-runtime
    mkdir -m 0700 "$runtime"
    echo "xwayland disable" >"$runtime/config"
    chown -R "$uid:$gid" "$runtime"
    env -i HOME="/home/$oe_sway_user" USER="$oe_sway_user" LOGNAME="$oe_sway_user" SHELL=/bin/sh \
        PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 XDG_RUNTIME_DIR="$runtime" \
        WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS="$1" \
        "$fx_marker" setpriv --reuid="$uid" --regid="$gid" --init-groups -- env -C "$runtime" sway -c "$runtime/config" \
        >"$fx_dir/sway.log" 2>&1 &
    local sway_pid=$!
    fx_track $sway_pid
    export SWAYSOCK=$runtime/sway-ipc.$uid.$sway_pid.sock
    fx_wait 10 eval 'swaymsg -t get_version >/dev/null 2>&1' || fail "sway did not start"
    local socket
    socket=$(find "$runtime" -maxdepth 1 -name 'wayland-*' -type s -printf '%f\n' | head -n 1)
    [ -n "$socket" ] || fail "sway opened no Wayland socket"
    # Root's clients (the overlay, grim, wtype) reach sway's socket through its runtime dir.
    export XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket GDK_BACKEND=wayland
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
    } >"$fx_dir/blocker.toml"
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
    fx_wait 10 oe__all_mapped "$@" || fail "the foot windows $* did not map"
}

oe_ctl() { "$bin/blockerctl" "$@"; }

# oe_start_blockerd PROBE [VAR=VALUE…] — VAR=VALUE in blockerd's environment only.
oe_start_blockerd() { # PROBE [VAR=VALUE…]
    env "${@:2}" "$bin/blockerd" --config "$fx_dir/blocker.toml" --state-dir "$fx_dir/state" --probe "$1" \
        > >(fx_stamp >>"$fx_dir/blockerd.log") 2>&1 &
    oe_blockerd_pid=$!
    fx_track $oe_blockerd_pid
    fx_wait 10 eval 'oe_ctl status --json >/dev/null 2>&1' || fail "blockerd does not answer on the bus"
}

oe_stop_blockerd() {
    fx_stop "$oe_blockerd_pid"
    oe_blockerd_pid=
}

# oe_start_overlay [VAR=VALUE…] — blocker-overlay, with VAR=VALUE in its environment only
# (LANG for the shell itself would change how it reads its own clock).
oe_start_overlay() {
    env "$@" "$bin/blocker-overlay" > >(fx_stamp >>"$fx_dir/overlay.log") 2>&1 &
    oe_overlay_pid=$!
    fx_track $oe_overlay_pid
    fx_wait 10 grep -qs "ready on" "$fx_dir/overlay.log" || fail "blocker-overlay did not start"
}

# oe_expect_cover_after_zero SHOT_FUNCTION — waits for the balance to run out
# (blockerd's next shield-up) and for SHOT_FUNCTION's screenshot to change by
# 90% from before.png; says how long the cover took, and fails past 3 s: a
# bound on its coming, not a speed target (bench-overlay measures the
# latency; a loaded CI machine once took 1.9 s).
oe_expect_cover_after_zero() {
    local shields seen zero shown latency
    shields=$(oe_count blockerd.log "event=shield-up")
    seen=$(oe_screen_until "$1" "$fx_dir/before.png" ge 90 12000) || seen=
    zero=$(oe_stamp_of blockerd.log "event=shield-up" $((shields + 1)))
    [ -n "$zero" ] || fail "the balance never ran out (no shield-up from blockerd within 12 s)"
    [ -n "$seen" ] || fail "the shield went up but the screen never changed by 90%"
    shown=$(oe_stamp_of overlay.log "shown over" '$')
    latency=$((seen - zero))
    fx_note "4. balance at zero → cover on screen: $latency ms by screenshot ($((shown - zero)) ms by the overlay's own log)"
    [ "$latency" -le 3000 ] || fail "the cover took $latency ms (> 3000) after the balance reached zero"
}

# oe_expect_opaque COVER_PNG — the full-size screenshot of the cover over the
# magenta app has not one magenta-tinted pixel, while before.png (the app
# uncovered, quarter size) was at least a quarter magenta: the cover hides it, it does
# not veil it.
oe_expect_opaque() {
    local before tinted
    before=$(fx_magenta_tinted "$fx_dir/before.png")
    [ "$before" -ge $(($(identify -format '%w*%h' "$fx_dir/before.png") / 4)) ] \
        || fail "the magenta app is not on screen before the cover ($before tinted pixels in before.png)"
    tinted=$(fx_magenta_tinted "$1")
    fx_note "opaque: $tinted of $(($(identify -format '%w*%h' "$1"))) pixels carry the app's magenta under the cover ($before of the quarter-size shot before it)"
    [ "$tinted" -eq 0 ] || fail "the app shows through the cover: $tinted magenta-tinted pixels"
}

# oe_expect_reps_earn SHOT_FUNCTION TYPE_FUNCTION [TRAILING_MS] — the earn form
# over the app: TYPE_FUNCTION types "2" and Enter into the cover (returning
# TRAILING_MS after the Enter went out); blockerd must log an earning of 2
# pushups, and SHOT_FUNCTION's screenshot must come back to within 10% of
# before.png (the app uncovered) within 3 s of the Enter, the shield down.
oe_expect_reps_earn() {
    local shot=$1 type=$2 trailing=${3:-0} earned entered gone
    earned=$(oe_count blockerd.log "event=earn")
    "$type"
    entered=$(($(fx_now_ms) - trailing))
    gone=$(oe_screen_until "$shot" "$fx_dir/before.png" le 10 5000) || gone=
    [ "$(oe_count blockerd.log "event=earn")" -gt "$earned" ] || fail "reps + Enter earned nothing"
    grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1 | grep -q "exercise=pushups reps=2 " \
        || fail "the earn was not 2 pushups: $(grep "event=earn" "$fx_dir/blockerd.log" | tail -n 1)"
    [ -n "$gone" ] || fail "the cover was still on screen 5 s after reps + Enter"
    fx_note "6. reps + Enter: earned; cover gone after $((gone - entered)) ms"
    [ $((gone - entered)) -le 3000 ] || fail "the cover took $((gone - entered)) ms (> 3000) to go after earning"
    ! oe_shield_active || fail "the shield is still up after earning"
}

# --- reading the chain -----------------------------------------------------

# oe_status EXPR — a Python expression over `s`, the `blockerctl status --json` object.
oe_status() {
    oe_ctl status --json | fx_json "$1"
}

# Whether blockerd says the shield is up.
oe_shield_active() { [ "$(oe_status 's["shield"]["active"]')" = True ]; }

# The shield's reason, or "down" (itest-pause.sh, itest-pause-sway.sh).
oe_shield_reason() { oe_status 's["shield"].get("reason", "") if s["shield"]["active"] else "down"'; }

# oe_answer_pause OPEN(true|false) [REASON] — AnswerPause for the group
# "meter", as the cover's buttons call it; blockerd's words on stdout/stderr.
oe_answer_pause() {
    gdbus call --session --dest io.github.blockerd.Blocker1 --object-path /io/github/blockerd/Blocker1 \
        --method io.github.blockerd.Blocker1.AnswerPause meter "$1" "${2:-}" 2>&1
}

# Lines of LOG (blockerd.log, overlay.log) matching PATTERN, as "MS LINE".
oe_count() { grep -c -- "$2" "$fx_dir/$1" 2>/dev/null || true; }

# The stamp (ms) of the Nth line of LOG matching PATTERN, empty if none yet.
oe_stamp_of() { grep -- "$2" "$fx_dir/$1" 2>/dev/null | sed -n "${3}p" | cut -d' ' -f1; }

# oe_screen_until SHOT_FN BEFORE ge|le PERCENT TIMEOUT_MS — screenshots with
# SHOT_FN until the share of pixels that differ from BEFORE is ≥ (ge) or ≤ (le)
# PERCENT; prints when that screenshot was taken (ms), or fails at the timeout.
oe_screen_until() {
    local shot=$1 before=$2 cmp=$3 percent=$4 deadline=$(($(fx_now_ms) + $5)) taken
    while [ "$(fx_now_ms)" -lt "$deadline" ]; do
        "$shot" "$fx_dir/shot.png"
        taken=$(fx_now_ms)
        if test "$(fx_diff_percent "$before" "$fx_dir/shot.png")" "-$cmp" "$percent"; then
            echo "$taken"
            return 0
        fi
        sleep 0.05
    done
    return 1
}
