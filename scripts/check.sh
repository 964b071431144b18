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

# Limits in seconds, ≥ 3× the time measured in one run on the 2-core machine
# beside two Swift builds (2026-12-04; the time after each). The default covers
# every script under 60 s (most take 2–42 s).
default_limit=${CHECK_TIME_LIMIT:-300}
declare -A limits=(
    [scripts/itest-deb.sh]=900           # a release build and the dpkg round trip: 236 s
    [scripts/itest-deb13.sh]=1800        # the same in the Debian 13 chroot: 118 s alone, 487 s loaded (chroot present); the first run also debootstraps it
    [scripts/itest-integrity.sh]=900     # every row on real servers: 241 s
    [scripts/itest-faults.sh]=400        # 100 s
    [scripts/itest-gnome48.sh]=600       # chroot present: 21 s; several minutes when loaded
    [scripts/itest-kde6.sh]=600          # chroot present: 28 s; several minutes when loaded
)
unit_limit=1800                          # swift test: ~75 s alone, ~10 min loaded

swift build --build-tests -Xswiftc -warnings-as-errors || { echo "check: build failed"; echo "0 passed, 1 failed"; exit 1; }

# The unit tests, with a limit too: tests cut off by it count as failed by name.
# Into a regular file, then shown: through a pipe to tee one run lost 90 tests'
# result lines, which then counted as never ended (cause not found: a child that
# shares the pipe may make it non-blocking); a regular file takes every write.
timeout --signal=TERM --kill-after=30 "$unit_limit" swift test --skip-build >"$log/unit.txt" 2>&1
unit_status=$?
cat "$log/unit.txt"
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
