# shellcheck shell=bash
# check-lib.sh — how scripts/check.sh counts (sourced; scripts/itest-check.sh
# tests it on canned output and on fake scripts).
#
# What counts as one test:
# - Swift Testing: one @Test function, however many arguments it runs with. Its
#   closing line counts ("✔ Test f() passed after …", "✘ Test f(n:) with 3 test
#   cases failed after …": a parameterized test fails when one case does). The
#   "◇ Test case passing … started." line of each argument and the "recorded an
#   issue" lines are not counted. A skipped test ("➜ Test f() skipped") counts as
#   failed: a missing server is a failure here, never a skip.
# - XCTest: one test method ("Test Case 'C.testX' passed (…)" / "… failed (…)";
#   on Darwin the name reads '-[Module.C testX]').
# - A test that started and never ended (the runner crashed or was stopped at
#   its time limit) counts as failed, by name.
# - A runner that exits non-zero and names no failing test counts as one failure.
# - An integration script is one test: exit 0 passes; anything else, or its time
#   limit, fails it by its name.

ck_passed=0
ck_failed=0
ck_failures=()   # one line per failure, for the summary

ck_pass() { ck_passed=$((ck_passed + 1)); }
ck_fail() { ck_failed=$((ck_failed + 1)); ck_failures+=("$1"); }

# ck_count_unit FILE STATUS — counts the tests of one `swift test` run whose
# output is in FILE and whose exit status was STATUS.
ck_count_unit() {
    local file=$1 status=$2 kind name passes=0 fails=0
    while IFS=$'\t' read -r kind name; do
        case $kind in
            pass) ck_pass; passes=$((passes + 1)) ;;
            fail) ck_fail "unit: $name"; fails=$((fails + 1)) ;;
        esac
    done < <(ck__unit_results "$file")
    if [ "$status" -ne 0 ] && [ "$fails" -eq 0 ]; then
        ck_fail "unit: swift test exited with status $status and named no failing test"
    elif [ "$status" -eq 0 ] && [ "$passes" -eq 0 ]; then
        ck_fail "unit: swift test ran no test"
    fi
}

# FILE → "pass<TAB>NAME" / "fail<TAB>NAME (why)" per test, in the order they ended;
# then the tests that started and never ended.
ck__unit_results() {
    LC_ALL=C.UTF-8 awk '
        # Swift Testing: the test, not its cases ("Test case passing …") nor the run.
        /^◇ Test / && !/^◇ Test (case passing |run started)/ && / started\.$/ {
            name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name)
            started[name]++; order[++n] = name; next
        }
        /^(✔|✘) Test / && !/^(✔|✘) Test run with / && / (passed|failed) after [0-9.]+ seconds/ {
            name = $0; sub(/^(✔|✘) Test /, "", name)
            passed = (name ~ / passed after [0-9.]+ seconds/)
            sub(/ (passed|failed) after [0-9.]+ seconds.*$/, "", name)
            sub(/ with [0-9]+ test cases?$/, "", name)
            started[name]--
            print (passed ? "pass\t" name : "fail\t" name); next
        }
        /^➜ Test .* skipped/ {
            name = $0; sub(/^➜ Test /, "", name); sub(/ skipped.*$/, "", name)
            print "fail\t" name " (skipped)"; next
        }
        # XCTest.
        /^Test Case \047[^\047]+\047 started/ {
            name = $0; sub(/^Test Case \047/, "", name); sub(/\047.*$/, "", name)
            started[name]++; order[++n] = name; next
        }
        /^Test Case \047[^\047]+\047 (passed|failed) \(/ {
            name = $0; sub(/^Test Case \047/, "", name); sub(/\047.*$/, "", name)
            started[name]--
            print ($0 ~ /\047 passed \(/ ? "pass\t" name : "fail\t" name); next
        }
        END {
            for (i = 1; i <= n; i++) {
                name = order[i]
                if (started[name] > 0) { started[name]--; print "fail\t" name " (started, never ended)" }
            }
        }
    ' "$1"
}

# ck_run_script SCRIPT LIMIT — runs `bash SCRIPT` with a time limit of LIMIT
# seconds: TERM at the limit (the script's EXIT trap stops its servers; the
# fixtures make TERM run it), KILL $CK_KILL_AFTER s (default 30) later. Counts
# it once, says how it ended and how long it took.
ck_run_script() {
    local script=$1 limit=$2 started=$SECONDS status=0 took
    timeout --signal=TERM --kill-after="${CK_KILL_AFTER:-30}" "$limit" bash "$script" || status=$?
    took=$((SECONDS - started))
    # 124: stopped by TERM at the limit; 137: had to be killed after it.
    if [ "$status" -eq 124 ] || { [ "$status" -eq 137 ] && [ "$took" -ge "$limit" ]; }; then
        echo "FAILED: $script timed out after $limit s"
        ck_fail "$script: timed out after $limit s"
    elif [ "$status" -ne 0 ]; then
        echo "FAILED: $script (exit status $status, after $took s)"
        ck_fail "$script: exit status $status"
    else
        echo "passed: $script in $took s"
        ck_pass
    fi
}

# The closing lines: every failure by name, then one "N passed, N failed".
ck_summary() {
    local line
    for line in "${ck_failures[@]}"; do echo "failed: $line"; done
    echo "$ck_passed passed, $ck_failed failed"
}
