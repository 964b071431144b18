#!/usr/bin/env bash
# Runs every test and ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
passed=0 failed=0

swift build --build-tests -Xswiftc -warnings-as-errors || { echo "check: build failed"; echo "0 passed, 1 failed"; exit 1; }
swift test --skip-build 2>&1 | tee "$log/unit.txt"
unit_rc=${PIPESTATUS[0]}
# Swift Testing's closing line: "✔ Test run with N tests in M suites passed …" or "✘ … with K issues".
n=$(grep -Eo 'Test run with [0-9]+ test' "$log/unit.txt" | grep -Eo '[0-9]+' | tail -1)
if [ "$unit_rc" -eq 0 ] && [ -n "$n" ]; then passed=$((passed + n)); else failed=$((failed + 1)); fi

for t in scripts/itest-*.sh; do
    [ -e "$t" ] || continue
    echo "=== $t"
    if bash "$t"; then passed=$((passed + 1)); else echo "FAILED: $t"; failed=$((failed + 1)); fi
done

echo "check: unit tests and integration scripts"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
