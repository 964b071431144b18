#!/usr/bin/env bash
# Runs every test: each Swift test and each integration script counts once,
# pass or fail (scripts/lib/check-lib.sh says what one is), every failure is
# named, and the run ends with one "N passed, N failed" line.
#
# Every integration script runs under a time limit: TERM at the limit (its EXIT
# trap stops its servers), KILL 30 s later; a script past its limit fails as
# "timed out after N s" and the run goes on. CHECK_TIME_LIMIT overrides the
# default limit; a script that needs more has its own below.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source scripts/lib/check-lib.sh
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# Limits in seconds, about 3× the longest run measured on the 2-core CI
# machine beside a Swift build (the measured time after each).
default_limit=${CHECK_TIME_LIMIT:-300}   # most scripts: 5–60 s
declare -A limits=(
    [scripts/itest-deb.sh]=1200          # a release build and dpkg round trip: ~330 s
    [scripts/itest-deb13.sh]=1800        # the same in the Debian 13 chroot (built when missing): ~480 s
    [scripts/itest-gnome48.sh]=900       # GNOME Shell 48 in the chroot: ~200 s
    [scripts/itest-kde6.sh]=900          # KWin 6 in the chroot: ~190 s
    [scripts/itest-gnome.sh]=600         # GNOME Shell 43, headless: ~110 s
    [scripts/itest-kde.sh]=600           # KWin 5.27: ~100 s
    [scripts/itest-integrity.sh]=600     # every row on real servers: ~120 s
    [scripts/itest-user-manager.sh]=600  # systemd --user: ~90 s
    [scripts/itest-blockerd-systemd.sh]=600
)
unit_limit=1800                          # swift test: ~75 s alone, ~10 min loaded

swift build --build-tests -Xswiftc -warnings-as-errors || { echo "check: build failed"; echo "0 passed, 1 failed"; exit 1; }

# The unit tests, with a limit too: tests cut off by it count as failed by name.
timeout --signal=TERM --kill-after=30 "$unit_limit" swift test --skip-build 2>&1 | tee "$log/unit.txt"
unit_status=${PIPESTATUS[0]}
[ "$unit_status" -eq 124 ] && echo "FAILED: swift test timed out after $unit_limit s"
ck_count_unit "$log/unit.txt" "$unit_status"
unit_passed=$ck_passed unit_failed=$ck_failed
echo "unit: $unit_passed passed, $unit_failed failed"

for t in scripts/itest-*.sh; do
    [ -e "$t" ] || continue
    echo "=== $t"
    ck_run_script "$t" "${limits[$t]:-$default_limit}"
done

echo "check: $((unit_passed + unit_failed)) unit tests ($unit_passed passed, $unit_failed failed)," \
    "$((ck_passed + ck_failed - unit_passed - unit_failed)) integration scripts" \
    "($((ck_passed - unit_passed)) passed, $((ck_failed - unit_failed)) failed)"
ck_summary
[ "$ck_failed" -eq 0 ]
