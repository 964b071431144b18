# shellcheck shell=bash
# Issue 20, rows 8, 10 and 12 (row 14 is a unit test: StrictRulesCoverEveryFieldTests).
# Sourced by scripts/itest-integrity.sh after `source scripts/lib/fixtures.sh;
# fx_begin itest-integrity`, with $bin the built programs' directory. The rows
# need a real systemd --user and journald, which user-manager.sh makes in a
# mount namespace of their own: they run in ledger-under-systemd.sh, a
# process of its own, and each of its "row N: …" lines becomes an ok here.
integrity_rows_8_12() {
    local here out line status=0
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    out=$fx_dir/rows-8-12.log
    bash "$here/ledger-under-systemd.sh" "$bin" >"$out" 2>"$fx_dir/rows-8-12-stderr.log" || status=$?
    while IFS= read -r line; do
        case $line in
        "row "*) ok "$line" ;;
        "FAIL: "*) fail "${line#FAIL: }" ;;
        esac
    done <"$out"
    [ "$status" -eq 0 ] || fail "rows 8, 10, 12: ledger-under-systemd.sh exited $status (see $out)"
    for row in 8 10 12; do grep -q "^row $row: " "$out" || fail "row $row: no result"; done
}
integrity_rows_8_12
