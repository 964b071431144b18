# shellcheck shell=bash
# rows-sway.sh — issue 20, rows 1–4 again on Wayland: a headless sway (run as
# the unprivileged user blocker-sway, since sway refuses root, by
# overlay-env.sh), blockerd with the sway probe, the real blocker-overlay (a
# gtk-layer-shell surface, not a window) and a private session bus.
#
# Sourced by scripts/itest-integrity.sh after `source scripts/lib/fixtures.sh;
# fx_begin itest-integrity`, with `bin` the built programs' directory. Runs in
# a subshell with its own scratch directory and process list, stopped on exit
# pass or fail; prints one `ok "row N (sway): closed|recorded: …"` line per row.
#
#   1. a foot started with --app-id=blocker-overlay, metered by its executable
#      (foot), is in front and charged, not taken for the cover;
#   3. a script owning io.github.blockerd.Cover before the overlay starts:
#      blockerd says it ignores it, and the real overlay covers all the same;
#   2. kill -TERM blocker-overlay under a shield: blockerd says no cover is
#      drawn, charges the app meanwhile, says the stretch when a cover is back;
#   4. sway has no screen saver service: a script owning
#      org.freedesktop.ScreenSaver says "locked" while the user goes on
#      switching windows; charged from the first switch on, and recorded.

# shellcheck source=../overlay-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../overlay-env.sh"
# shellcheck source=cover-checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/cover-checks.sh"

# (Its helpers run through fx_wait: shellcheck cannot see them called.)
# shellcheck disable=SC2317
integrity_rows_sway() (
    # A run of its own (fixtures.sh's fx_begin, under the driver's name): its
    # directory (sway's user enters it, so not below the driver's), its
    # processes (sway's clients by the marker), all stopped by its EXIT trap.
    # shellcheck disable=SC2154 # fx_name and bin: itest-integrity.sh's
    fx_begin "$fx_name"
    oe_begin
    fx_need sway swaymsg foot setpriv gjs python3 dbus-daemon
    fx_start_bus
    export TZ=UTC NO_COLOR=1 HOME=$fx_dir
    unset XDG_CONFIG_HOME XDG_STATE_HOME
    oe_start_sway 1
    # The lookalike (app id blocker-overlay) and another foot; both are foot,
    # the metered executable. 3 s a push-up.
    oe_open_foots blocker-overlay notes
    oe_write_config 0.05
    printf '\n[[group]]\nname = "terminal"\napps = ["foot"]\n' >>"$fx_dir/blocker.toml"
    front() { oe_status '(s["foreground"] or {}).get("app")'; }
    front_is() { [ "$(front)" = "$1" ]; }
    focus() { swaymsg "[app_id=$1] focus" >/dev/null && fx_wait 3 front_is "$1"; }
    balance() { oe_status 's["balance_ms"]'; }
    # The metered group's time today, as the ledger has it.
    used_ms() { oe_ctl history --days 1 --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['groups'].get('terminal', 0))"; }
    logged() { grep -q -- "$1" "$fx_dir/blockerd.log"; }
    says() { [ "$(oe_status "$1")" = "$2" ]; } # EXPR VALUE
    history_has() { local history; history=$(oe_ctl history --days 1) && grep -q -- "$1" <<<"$history"; }
    shown_since() { [ "$(oe_count overlay.log "shown over")" -gt "$1" ]; } # COUNT

    # Row 3 first: a script takes the cover's name before anything else runs.
    gjs "$(dirname "${BASH_SOURCE[0]}")/../own-bus-name.js" io.github.blockerd.Cover >"$fx_dir/squatter.log" 2>&1 &
    fx_track $!
    fx_wait 10 grep -qs owned "$fx_dir/squatter.log" || fail "the script did not take io.github.blockerd.Cover"
    oe_start_blockerd sway
    [ "$(oe_status 's["probe"]["name"], s["probe"]["ok"]')" = "sway True" ] ||
        fail "blockerd's sway probe is not working: $(oe_status 's["probe"]')"
    oe_start_overlay

    # Row 1: the lookalike in front, 9 s earned: charged as what it is.
    focus blocker-overlay || fail "row 1: the foot with app id blocker-overlay is not what blockerd sees in front: $(oe_status 's["foreground"]')"
    oe_ctl earn 3 pushups >/dev/null || fail "earn failed"
    local shows before after
    shows=$(oe_count overlay.log "shown over")
    before=$(balance)
    sleep 3
    after=$(balance)
    [ $((before - after)) -ge 2500 ] || fail "row 1: the lookalike was charged $((before - after)) ms in 3 s"
    ok "row 1 (sway): closed: a foot with --app-id=blocker-overlay is in front and charged ($((before - after)) ms of 3 s, sway probe, group $(oe_status 's["foreground"]["groups"]')); the cover is known by its process"

    # Row 3: the squatter was ignored; the real overlay covers once the balance runs out.
    integrity_cover_refused "$fx_dir/blockerd.log" "$fx_dir/overlay.log"
    fx_wait 15 shown_since "$shows" ||
        fail "row 3: no cover on screen once the balance ran out, with a script owning the Cover name"
    [ "$(oe_status 's["shield"]["active"]')" = True ] || fail "row 3: a cover, but no shield"
    ok "row 3 (sway): closed: a script owning io.github.blockerd.Cover first is ignored (journal: cover-refused) and blocker-overlay covers ($(grep -o "shown over.*" "$fx_dir/overlay.log" | tail -n 1))"

    # Row 2: under the drawn cover the lookalike stays in front, uncharged.
    local used0 used1 used2 killed back
    used0=$(used_ms); sleep 2; used1=$(used_ms)
    [ $((used1 - used0)) -le 500 ] || fail "row 2: $((used1 - used0)) ms counted in 2 s under a drawn cover"
    front_is blocker-overlay || fail "row 2: with the cover up, blockerd sees $(oe_status 's["foreground"]') in front"
    killed=$(fx_now_ms)
    kill -TERM "$oe_overlay_pid"
    fx_wait 5 logged "event=cover-missing" || fail "row 2: blockerd did not notice the cover was gone"
    # Nothing covers the app: the user goes on in it.
    focus blocker-overlay || fail "row 2: the lookalike is not in front with the cover gone"
    sleep 5
    oe_start_overlay
    fx_wait 10 logged "event=cover-back" || fail "row 2: blockerd did not see the cover back"
    back=$(fx_now_ms)
    # Charged for at least 80% of the time from the kill to the cover back.
    charged_enough() { used2=$(used_ms) && [ $((used2 - used1)) -ge $(((back - killed) * 8 / 10)) ]; }
    fx_wait 3 charged_enough || fail "row 2: only $((used2 - used1)) ms counted in $((back - killed)) ms with no cover drawn"
    local line note
    line=$(grep "event=cover-back" "$fx_dir/blockerd.log" | tail -n 1)
    note=$(integrity_uncovered_noted) || exit 1
    ok "row 2 (sway): recorded: blocker-overlay killed under a shield: the time is charged ($((used2 - used1)) ms of $((back - killed)) ms) and said: ${line#*>}; history: $note"

    # Row 4: a script owning org.freedesktop.ScreenSaver says "locked" (no
    # screen saver runs on sway), and the user goes on switching windows.
    mkfifo "$fx_dir/saver.in"
    gjs "$(dirname "${BASH_SOURCE[0]}")/../fake-screensaver.js" <"$fx_dir/saver.in" >"$fx_dir/saver.log" 2>&1 &
    fx_track $!
    exec 7>"$fx_dir/saver.in"
    fx_wait 5 grep -qs owns "$fx_dir/saver.log" || fail "row 4: the script did not take org.freedesktop.ScreenSaver"
    oe_ctl earn 10 pushups >/dev/null || fail "earn failed"
    fx_wait 3 says 's["spending"]' True || fail "row 4: the lookalike in front is not being spent"
    echo lock >&7
    fx_wait 3 says 's["locked"]' True || fail "row 4: the script's lock is not honoured at first"
    focus notes || fail "row 4: cannot focus notes"
    focus blocker-overlay || fail "row 4: cannot focus the lookalike again"
    fx_wait 5 logged "event=lock-not-honoured" || fail "row 4: no lock-not-honoured event after a window switch while 'locked'"
    line=$(grep "event=lock-not-honoured" "$fx_dir/blockerd.log" | tail -n 1)
    grep -q "source=org.freedesktop.ScreenSaver (owned by .*gjs.*) reason=the window in front changed" <<<"$line" ||
        fail "row 4: the event does not say why: $line"
    before=$(balance)
    sleep 3
    after=$(balance)
    [ $((before - after)) -ge 2000 ] || fail "row 4: $((before - after)) ms charged in 3 s under a screen saver not honoured"
    [ "$(oe_status 's["locked"]')" = False ] || fail "row 4: status still says locked"
    echo unlock >&7
    fx_wait 3 history_has "! lock not honoured" || fail "row 4: history does not show the lock: $(oe_ctl history --days 1)"
    note=$(oe_ctl history --days 1 | grep -o '! lock not honoured.*') || fail "row 4: history"
    ok "row 4 (sway): recorded, and charged: a gjs script owning org.freedesktop.ScreenSaver says locked; switching windows under it, it is not honoured: $((before - after)) ms charged in 3 s after; journal: ${line#*>}; history: ${note%%$'\n'*}"
)

integrity_rows_sway || exit 1
