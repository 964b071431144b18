#!/usr/bin/env bash
# check.sh counts honestly: each Swift test once, pass or fail (a parameterized
# one once, a skipped or unfinished one as failed, by name), and an integration
# script that hangs fails by its name at its time limit, its servers stopped by
# its own EXIT trap, while the run goes on. On canned `swift test` output
# (scripts/lib/check-selftest/, from Swift Testing 6.3 and XCTest) and fake
# scripts; no Swift build needed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
source "$here/scripts/lib/check-lib.sh"
fx_begin itest-check
canned=$here/scripts/lib/check-selftest/swift-test-failing.txt

# expect_counts PASSED FAILED FAILURE… — ck_passed, ck_failed and the failure lines, then resets them.
expect_counts() {
    local passed=$1 failed=$2
    shift 2
    [ "$ck_passed $ck_failed" = "$passed $failed" ] || fail "counted $ck_passed passed, $ck_failed failed; expected $passed, $failed (${ck_failures[*]})"
    [ "$(printf '%s\n' "${ck_failures[@]}")" = "$(printf '%s\n' "$@")" ] \
        || fail "failures named: $(printf '[%s] ' "${ck_failures[@]}"); expected: $(printf '[%s] ' "$@")"
    ck_passed=0 ck_failed=0 ck_failures=()
}

# --- counting swift test's output
ck_count_unit "$canned" 1
expect_counts 5 5 "unit: XC.testFails" "unit: skipped() (skipped)" "unit: cases(n:)" "unit: fails()" "unit: same()"
ok "a failing run: each test once (XCTest 1+1, Swift Testing 4+4: a parameterized one once, a skipped one failed), by name"

# Cut off after the first cases started (a crash, or the unit time limit).
head -n 26 "$canned" >"$fx_dir/cut.txt"
ck_count_unit "$fx_dir/cut.txt" 143
expect_counts 1 8 "unit: XC.testFails" "unit: skipped() (skipped)" \
    "unit: cases(n:) (started, never ended)" "unit: same() (started, never ended)" "unit: fails() (started, never ended)" \
    "unit: \"a display name\" (started, never ended)" "unit: allCasesPass(n:) (started, never ended)" \
    "unit: passes() (started, never ended)"
ok "a run cut off: every test that started and never ended fails by name"

grep -e '^◇ Test passes()' -e '^✔ Test passes()' "$canned" >"$fx_dir/no-failure.txt"
ck_count_unit "$fx_dir/no-failure.txt" 1
expect_counts 1 1 "unit: swift test exited with status 1 and named no failing test"
: >"$fx_dir/empty.txt"
ck_count_unit "$fx_dir/empty.txt" 0
expect_counts 0 1 "unit: swift test ran no test"
ok "a failing exit with no failing test, and a run of no test, are failures"

# --- a time limit for each script
# A fake server that ignores TERM (only fx_stop's KILL ends it), and a script
# that starts it with the fixtures and hangs.
mkdir "$fx_dir/fake"
cat >"$fx_dir/fake/itest-hang.sh" <<EOF
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-hang
bash -c 'trap "" TERM; exec sleep 1000' &
fx_track \$!
echo "\$! \$fx_dir" >"$fx_dir/hang.state"
sleep 1000
EOF
cat >"$fx_dir/fake/itest-pass.sh" <<<'echo fine'
cat >"$fx_dir/fake/itest-fail.sh" <<<'exit 3'
cat >"$fx_dir/fake/itest-stubborn.sh" <<<'trap "" TERM; sleep 1000'

start=$SECONDS
ck_run_script "$fx_dir/fake/itest-hang.sh" 2 >"$fx_dir/hang.out"
took=$((SECONDS - start))
[ "$(cat "$fx_dir/hang.out")" = "FAILED: $fx_dir/fake/itest-hang.sh timed out after 2 s" ] || fail "the hung script said: $(cat "$fx_dir/hang.out")"
expect_counts 0 1 "$fx_dir/fake/itest-hang.sh: timed out after 2 s"
[ "$took" -le 15 ] || fail "the hung script ended $took s after it started (limit 2 s, its cleanup up to 3 s)"
read -r server hang_dir <"$fx_dir/hang.state"
! fx_alive "$server" || fail "the hung script's server (pid $server) still runs: TERM did not run its EXIT trap"
[ ! -e "$hang_dir" ] || fail "the hung script's scratch directory $hang_dir is left: its EXIT trap did not run"
ok "a hung script fails by name at its limit ($took s), and TERM runs its EXIT trap: its server stopped, its files gone"

start=$SECONDS
out=$(CK_KILL_AFTER=1 ck_run_script "$fx_dir/fake/itest-stubborn.sh" 1)
[ "$out" = "FAILED: $fx_dir/fake/itest-stubborn.sh timed out after 1 s" ] || fail "the script ignoring TERM said: $out"
[ $((SECONDS - start)) -le 5 ] || fail "the script ignoring TERM was killed only after $((SECONDS - start)) s"
ok "a script that ignores TERM is killed $((SECONDS - start)) s after its limit and fails by name"

ck_run_script "$fx_dir/fake/itest-pass.sh" 5 >/dev/null
ck_run_script "$fx_dir/fake/itest-fail.sh" 5 >"$fx_dir/fail.out"
grep -qx "FAILED: $fx_dir/fake/itest-fail.sh (exit status 3, after [0-9]* s)" "$fx_dir/fail.out" || fail "a failing script said: $(cat "$fx_dir/fail.out")"
expect_counts 1 1 "$fx_dir/fake/itest-fail.sh: exit status 3"
ok "a passing script counts once passed, a failing one once failed with its status"

# --- the whole of check.sh, with a fake swift and the fake scripts
tree=$fx_dir/tree
mkdir -p "$tree/scripts/lib" "$fx_dir/path"
cp "$here/scripts/check.sh" "$tree/scripts/"
cp "$here/scripts/lib/"*.sh "$tree/scripts/lib/"
cp "$fx_dir/fake/itest-pass.sh" "$fx_dir/fake/itest-fail.sh" "$fx_dir/fake/itest-hang.sh" "$tree/scripts/"
cat >"$fx_dir/path/swift" <<EOF
#!/bin/sh
[ "\$1" = test ] || exit 0
cat "$canned"
exit 1
EOF
chmod +x "$fx_dir/path/swift"
status=0
PATH=$fx_dir/path:$PATH CHECK_TIME_LIMIT=2 timeout 120 bash "$tree/scripts/check.sh" >"$fx_dir/check.out" 2>&1 || status=$?
[ "$status" -ne 124 ] || fail "check.sh itself hung on the hung script (stopped after 120 s)"
[ "$status" -eq 1 ] || fail "check.sh exited with $status, not 1"
[ "$(tail -n 1 "$fx_dir/check.out")" = "6 passed, 7 failed" ] || fail "check.sh ended with: $(tail -n 1 "$fx_dir/check.out")"
grep -qx "failed: scripts/itest-hang.sh: timed out after 2 s" "$fx_dir/check.out" || fail "check.sh did not name the hung script: $(tail -n 12 "$fx_dir/check.out")"
grep -qx "check: 10 unit tests (5 passed, 5 failed), 3 integration scripts (1 passed, 2 failed)" "$fx_dir/check.out" \
    || fail "check.sh's totals: $(grep '^check:' "$fx_dir/check.out")"
ok "check.sh: 10 unit tests and 3 scripts counted once each, the hung one by name: $(tail -n 1 "$fx_dir/check.out")"
