#!/usr/bin/env bash
# bench-overlay.sh — the overlay's rows of `make bench`:
#   - balance reaching zero → cover mapped, median of 10, on headless sway
#     and on Xvfb + openbox (the sway and x11 probes are event-driven);
#   - the overlay's resident memory while hidden.
#
#   scripts/bench-overlay.sh [BIN_DIR]
#
# BIN_DIR defaults to the release build; the release programs it lacks are
# built (bench.sh builds blockerd and blockerctl, not blocker-overlay). "Zero"
# is when blockerd says the shield went up: it wakes at the instant its
# ledger reaches zero, not on its next poll. "Mapped" is when blocker-overlay
# says the first frame of the cover was drawn. Both lines are stamped as they
# arrive, so the time includes the signal's trip over the session bus.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
release=$(cd "$here" && swift build -c release --show-bin-path)
export BLOCKER_BIN=${1:-$release}
if [ -z "${BENCH_OVERLAY_BACKEND:-}" ]; then
    for product in blockerd blockerctl blocker-overlay; do
        [ -x "$BLOCKER_BIN/$product" ] && [ $# -gt 0 ] && continue
        [ "$BLOCKER_BIN" = "$release" ] || { echo "bench-overlay: $BLOCKER_BIN/$product is not built" >&2; exit 1; }
        (cd "$here" && swift build -c release --static-swift-stdlib --product "$product" >&2)
    done
fi

# One backend per run of this script (each sets up and tears down its own servers).
if [ -z "${BENCH_OVERLAY_BACKEND:-}" ]; then
    for backend in sway x11; do
        BENCH_OVERLAY_BACKEND=$backend "$0" "$BLOCKER_BIN"
    done
    exit 0
fi

# shellcheck source=lib/overlay-env.sh
source "$here/scripts/lib/overlay-env.sh"
backend=$BENCH_OVERLAY_BACKEND
oe_init "bench-overlay-$backend"
runs=10

row() { printf '| %-46s | %15s | %-22s |\n' "$@"; }

fx_start_bus
case $backend in
sway)
    oe_start_sway 1
    swaymsg exec "foot --app-id=blocker-meter sh" >/dev/null
    fx_wait 10 eval 'swaymsg -t get_tree | grep -q "\"app_id\": \"blocker-meter\""' || fail "foot did not map"
    # pushups earn 0.6 s a rep.
    oe_write_config 0.01
    probe=sway
    label=sway
    ;;
x11)
    oe_start_x11
    xterm -class blocker-meter -geometry 200x57+0+0 >"$fx_dir/xterm.log" 2>&1 &
    fx_track $!
    fx_wait 10 eval 'xdotool search --onlyvisible --class blocker-meter >/dev/null 2>&1' || fail "the xterm did not map"
    xdotool windowactivate --sync "$(xdotool search --onlyvisible --class blocker-meter | head -n 1)"
    oe_write_config 0.01
    probe=x11
    label=X11
    ;;
*) fail "unknown backend $backend" ;;
esac
oe_start_blockerd $probe
oe_start_overlay
fx_wait 5 eval '[ "$(oe_count overlay.log "shown over")" -ge 1 ]' || fail "the cover did not show at start"

latencies=()
for _ in $(seq $runs); do
    shields=$(oe_count blockerd.log "event=shield-up")
    shown=$(oe_count overlay.log "shown over")
    hidden=$(oe_count overlay.log "blocker-overlay: hidden")
    oe_ctl earn 1 pushups >/dev/null || fail "blockerctl earn failed"
    fx_wait 5 eval '[ "$(oe_count overlay.log "blocker-overlay: hidden")" -gt $hidden ]' || fail "the cover did not go"
    fx_wait 5 eval '[ "$(oe_count overlay.log "shown over")" -gt $shown ]' || fail "the cover did not come back at zero"
    zero=$(oe_stamp_of blockerd.log "event=shield-up" $((shields + 1)))
    mapped=$(oe_stamp_of overlay.log "shown over" $((shown + 1)))
    latencies+=($((mapped - zero)))
done
median=$(printf '%s\n' "${latencies[@]}" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}')
fx_note "zero -> mapped ($label, $probe probe), ms: ${latencies[*]}"
row "overlay: zero -> mapped, $label (median of $runs)" "$median ms" "<= 300 ms"

if [ "$backend" = sway ]; then
    # Hidden, settled: 20 pushups = 12 s of balance.
    hidden=$(oe_count overlay.log "blocker-overlay: hidden")
    oe_ctl earn 20 pushups >/dev/null || fail "blockerctl earn failed"
    fx_wait 5 eval '[ "$(oe_count overlay.log "blocker-overlay: hidden")" -gt $hidden ]' || fail "the cover did not go"
    sleep 2
    rss_kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$oe_overlay_pid/status")
    row "overlay: RSS while hidden" "$(awk "BEGIN {printf \"%.1f MiB\", $rss_kb / 1024}")" "(reported)"
fi
