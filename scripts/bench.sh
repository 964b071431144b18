#!/usr/bin/env bash
# `make bench`: every benchmark, one table. Speed and memory targets are
# checked here, not by timed assertions in tests (these machines are noisy).
#   BENCH_SECONDS=60 make bench   — shorter daemon runs (default 600 s each, two of them)
#   PEER_SWITCH_SECONDS=120 PEER_STATIC_SECONDS=60 make bench   — shorter peer run (default 600 + 300 s)
set -euo pipefail
cd "$(dirname "$0")/.."
for product in blockerd blockerctl blocker-overlay blocker-bench; do
    swift build -c release --static-swift-stdlib --product "$product" >&2
done
bin=$(swift build -c release --show-bin-path)
row() { printf '| %-50s | %18s | %-26s |\n' "$@"; }
# A probe bench's "  label   value" lines as table rows, with targets where the issue sets them.
probe_rows() { # NAME TARGET_CPU TARGET_LATENCY
    local name=$1 cpu=$2 latency=$3
    while IFS= read -r line; do
        [[ "$line" =~ ^\ \ (.+[^ ])\ {2,}([^ ].*)$ ]] || continue
        local label=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]} target=""
        case "$label" in
            "per-sample CPU"*) target=$cpu ;;
            *"sample done, median"*) target=$latency ;;
            "CPU per focus change: events + sample"*) target="<= 76 us (a C client)" ;;
            *"xdotool"*|*"ratio"*|*"less CPU"*) target=">= 30x less CPU" ;;
        esac
        label=${label//→/->}
        row "$name: $label" "${value//µ/u}" "$target"
    done
}
# A bench script's own "| label | value | target |" rows, re-laid into this table.
# Cells are trimmed but a label's leading spaces (a sub-row) are kept; the target may be empty.
table_rows() {
    awk -F'|' 'NF >= 5 {
        label = $2; sub(/^ /, "", label); sub(/ +$/, "", label)
        value = $3; gsub(/^ +| +$/, "", value)
        target = $4; gsub(/^ +| +$/, "", target)
        printf "%s\t%s\t%s\n", label, value, target
    }' | while IFS=$'\t' read -r a b c; do row "$a" "$b" "$c"; done
}
row "measurement" "result" "target"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..52})" "$(printf -- '-%.0s' {1..20})" "$(printf -- '-%.0s' {1..28})"
scripts/bench-bus.sh "$bin" | table_rows
# The x11 bench prints "label  value  target  verdict" columns of its own.
scripts/bench-x11.sh "$bin/blocker-bench" 2>/dev/null | tail -n +2 |
    sed -E 's/µ/u/g; s/→/->/g; s/≤/<=/g; s/≥/>=/g; s/×/x/g' |
    sed -E 's/^ *(.*[^ ]) {2,}([0-9.]+x?)( {2,}(.*))?$/\1\t\2\t\4/' |
    while IFS=$'\t' read -r a b c; do row "x11: ${a#x11 }" "$b" "$c"; done
scripts/bench-sway.sh "$bin/blocker-bench" 2>/dev/null | probe_rows sway "" "<= 20 ms (as X11)"
scripts/bench-wlroots.sh "$bin/blocker-bench" 2>/dev/null | probe_rows wlroots "" "<= 20 ms (as X11)"
scripts/bench-overlay.sh "$bin" 2>/dev/null | table_rows
{ scripts/bench-daemon.sh "$bin/blockerd"; PROBE=x11 scripts/with-xvfb.sh scripts/bench-daemon.sh "$bin/blockerd"; } | table_rows
BLOCKER_BIN=$bin scripts/bench-daemon-wayland.sh 2>/dev/null | table_rows
BLOCKER_BIN=$bin scripts/bench-gnome.sh 2>/dev/null | table_rows
BLOCKER_BIN=$bin scripts/bench-kde.sh 2>/dev/null | table_rows
scripts/bench-browser.sh "$bin" | table_rows
"$bin/blocker-bench" sync | table_rows
scripts/bench-peers.sh "$bin" | table_rows
