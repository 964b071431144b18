# shellcheck shell=bash
# run-process.sh — for the rows that need a process of their own (a real
# systemd --user and journald in a mount namespace of their own, made by
# user-manager.sh, which re-executes its script: a sourced fragment cannot).
# Sourced by the rows-*.sh files that run one, in scripts/itest-integrity.sh
# after fixtures.sh's fx_begin, with $bin the built programs' directory.

# integrity_run_process NAME SCRIPT ROW… — runs `bash SCRIPT "$bin"` (a file
# beside this one), its stdout in $fx_dir/NAME.log and its narration in
# $fx_dir/NAME-stderr.log; each "row N…" line it prints becomes an ok, a
# "FAIL: …" line a failure, and so do a non-zero exit and a ROW it said
# nothing of. Safe under the driver's set -e.
# shellcheck disable=SC2154 # fx_dir (fx_begin) and bin: the driver's
integrity_run_process() {
    local name=$1 script=$2 out line row status=0
    shift 2
    out=$fx_dir/$name.log
    bash "$(dirname "${BASH_SOURCE[0]}")/$script" "$bin" >"$out" 2>"$fx_dir/$name-stderr.log" || status=$?
    while IFS= read -r line; do
        case $line in
        "row "*) ok "$line" ;;
        "FAIL: "*) fail "${line#FAIL: }" ;;
        esac
    done <"$out"
    [ "$status" -eq 0 ] || fail "$name: $script exited $status (see $out)"
    for row in "$@"; do grep -q "^row ${row}[: ]" "$out" || fail "row $row: no result"; done
}
