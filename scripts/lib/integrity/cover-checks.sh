# shellcheck shell=bash
# cover-checks.sh — what rows 2 and 3 of issue 20 check the same way on
# every desktop (rows-1-3.sh on X11, rows-sway.sh on sway), sourced by both.
# Uses fixtures.sh's `fail` and the driver's `bin`.

# integrity_cover_refused DAEMON_LOG OVERLAY_LOG — row 3: blockerd and
# blocker-overlay both said they ignore the owner of io.github.blockerd.Cover.
integrity_cover_refused() {
    grep -q "event=cover-refused.*io.github.blockerd.Cover owned by" "$1" ||
        fail "row 3: blockerd did not say it ignored the Cover name's owner"
    grep -q "which is no desktop shell: ignored, covering" "$2" ||
        fail "row 3: blocker-overlay did not ignore the squatter: $(tail -n 5 "$2")"
}

# integrity_uncovered_noted — row 2: the stretch with no cover drawn is an
# integrity note, with the time charged, in `blockerctl history` and
# `doctor`; prints history's line. Run it in $(…) || exit 1.
integrity_uncovered_noted() {
    local history doctor
    # shellcheck disable=SC2154 # bin: itest-integrity.sh's
    history=$("$bin/blockerctl" history --days 1) || fail "row 2: blockerctl history failed"
    grep -q "! uncovered .*charged" <<<"$history" || fail "row 2: history does not show the uncovered stretch: $history"
    doctor=$("$bin/blockerctl" doctor 2>&1 || true)
    grep -q "uncovered" <<<"$doctor" || fail "row 2: doctor does not show the uncovered stretch: $(grep -i "integrity" <<<"$doctor")"
    grep -o '! uncovered.*' <<<"$history" | head -n 1
}
