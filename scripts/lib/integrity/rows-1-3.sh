# shellcheck shell=bash
# rows-1-3.sh — issue 20, rows 1–3 (the cover), done as a user would, on
# Xvfb + openbox with blockerd's x11 probe, the real blocker-overlay and a
# private session bus. (Row 2 under a real `systemd --user`, where
# `systemctl --user stop` makes blockerd ask the user manager for the overlay:
# rows-2-systemd.sh.) rows-sway.sh does rows 1–4 again on a headless sway.
#
# Sourced by scripts/itest-integrity.sh after `source scripts/lib/fixtures.sh;
# fx_begin itest-integrity`, with `bin` the built programs' directory. Runs in
# a subshell with its own scratch directory and process list, stopped on exit
# pass or fail; prints one `ok "row N: closed|recorded: …"` line per row.
#
#   1. an xterm started with -class blocker-overlay (WM_CLASS and instance),
#      metered by its executable, is in front and charged, not taken for the cover;
#   2. kill -TERM blocker-overlay under a shield: blockerd says no cover is
#      drawn, charges the app meanwhile, says the stretch and what it charged
#      when a cover is back;
#   3. a script owning io.github.blockerd.Cover before the overlay starts:
#      blockerd says it ignores it, and the real overlay covers all the same.

# shellcheck source=cover-checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/cover-checks.sh"

integrity_rows_1_3() (
    fx_nested rows-1-3
    fx_need Xvfb openbox xterm xdotool python3 gjs
    fx_private_session
    fx_x_session "$fx_dir"
    local config=$fx_dir/config/blocker.toml
    mkdir -p "$fx_dir/config" "$fx_dir/state"
    # The metered app is an xterm, known by its executable whatever its class:
    # 3 s a push-up.
    cat >"$config" <<TOML
[daemon]
probe = "x11"
poll-interval = "500ms"
[earn]
pushups = 0.05
[[group]]
name = "social"
apps = ["xterm"]
TOML
    status() { "$bin/blockerctl" status --json | fx_json "$1"; }
    # The metered group's time today (a balance of 0 has nothing to debit: its use still counts).
    used_ms() { "$bin/blockerctl" history --days 1 --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['groups'].get('social', 0))"; }
    logged() { grep -q "$1" "$fx_dir/daemon.log"; }

    # Row 3 first: a script takes the cover's name before anything else runs.
    gjs "$(dirname "${BASH_SOURCE[0]}")/../own-bus-name.js" io.github.blockerd.Cover >"$fx_dir/squatter.log" 2>&1 &
    fx_track $!
    fx_wait 10 grep -q owned "$fx_dir/squatter.log" || fail "the script did not take io.github.blockerd.Cover"

    "$bin/blockerd" --config "$config" --state-dir "$fx_dir/state" >>"$fx_dir/daemon.log" 2>&1 &
    fx_track $!
    fx_wait_daemon "$bin" || fail "blockerd did not answer Status"
    "$bin/blocker-overlay" >>"$fx_dir/overlay.log" 2>&1 &
    local overlay=$!
    fx_track $overlay
    fx_wait 10 grep -q "ready on" "$fx_dir/overlay.log" || fail "blocker-overlay did not start"

    # Row 1: the lookalike. Earn 30 s, put it in front, and see it charged.
    xterm -class blocker-overlay -name blocker-overlay -title discord -e sleep 3600 >/dev/null 2>&1 &
    fx_track $!
    local lookalike
    lookalike=$(fx_x_window blocker-overlay) || fail "the lookalike xterm did not map"
    fx_x_activate "$lookalike" || fail "openbox did not activate the lookalike"
    "$bin/blockerctl" earn 10 pushups >/dev/null || fail "earn failed"
    local shows
    shows=$(grep -c "shown over" "$fx_dir/overlay.log" || true)
    fx_wait 5 eval '[ "$(status "(s[\"foreground\"] or {}).get(\"app\")")" = blocker-overlay ]' ||
        fail "row 1: the xterm called blocker-overlay is not what blockerd sees in front: $(status 's["foreground"]')"
    local before after
    before=$(status 's["balance_ms"]')
    sleep 3
    after=$(status 's["balance_ms"]')
    [ $((before - after)) -ge 2500 ] ||
        fail "row 1: the lookalike was charged $((before - after)) ms in 3 s"
    ok "row 1: closed: an xterm with -class/-name blocker-overlay is in front and charged ($((before - after)) ms of 3 s, X11); the cover is known by its process"

    # Row 3: the squatter was ignored; the real overlay covers once the balance runs out.
    integrity_cover_refused "$fx_dir/daemon.log" "$fx_dir/overlay.log"
    # Its first frame is logged once the cover is drawn on screen.
    fx_wait 40 eval '[ "$(grep -c "shown over" "$fx_dir/overlay.log")" -gt "$shows" ]' ||
        fail "row 3: no cover on screen once the balance ran out, with a script owning the Cover name"
    [ "$(status 's["shield"]["active"]')" = True ] || fail "row 3: a cover, but no shield"
    ok "row 3: closed: a script owning io.github.blockerd.Cover first is ignored (journal: cover-refused) and blocker-overlay covers"

    # Row 2: with the real cover up (and focused), the lookalike beneath stays in front and uncharged.
    fx_wait 5 logged "event=shield-up" || fail "no shield-up"
    local used0 used1 used2
    used0=$(used_ms); sleep 2; used1=$(used_ms)
    [ $((used1 - used0)) -le 500 ] || fail "row 2: $((used1 - used0)) ms counted in 2 s under a drawn cover"
    [ "$(status "(s[\"foreground\"] or {}).get(\"app\")")" = blocker-overlay ] ||
        fail "row 2: with the real cover focused, blockerd sees $(status 's["foreground"]') in front"
    kill -TERM "$overlay"
    fx_wait 5 logged "event=cover-missing" || fail "row 2: blockerd did not notice the cover was gone"
    # Nothing covers the app: the user clicks it and uses it.
    fx_x_activate "$lookalike" || fail "openbox did not activate the app again"
    # The x11 probe ticks on events, and at the latest every 10 s while charging.
    used1=$(used_ms); sleep 11; used2=$(used_ms)
    [ $((used2 - used1)) -ge 9000 ] || fail "row 2: only $((used2 - used1)) ms counted in 11 s with no cover drawn"
    "$bin/blocker-overlay" >>"$fx_dir/overlay.log" 2>&1 &
    overlay=$!
    fx_track $overlay
    fx_wait 10 logged "event=cover-back" || fail "row 2: blockerd did not see the cover back"
    local line
    line=$(grep "event=cover-back" "$fx_dir/daemon.log" | tail -n 1)
    # Kept for history and doctor too (an integrity note), with the time charged.
    local note
    note=$(integrity_uncovered_noted) || exit 1
    ok "row 2: recorded: blocker-overlay killed under a shield: the time is charged ($((used2 - used1)) ms of 11 s) and said: ${line#*>}; history: $note"


)

integrity_rows_1_3 || exit 1
