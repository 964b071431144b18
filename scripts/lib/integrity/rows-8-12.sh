# shellcheck shell=bash
# Issue 20, rows 8, 10 and 12 (row 14 is a unit test: StrictRulesCoverEveryFieldTests).
# Sourced by scripts/itest-integrity.sh after `source scripts/lib/fixtures.sh;
# fx_begin itest-integrity`, with $bin the built programs' directory. The rows
# need a real systemd --user and journald, which user-manager.sh makes in a
# mount namespace of their own: they run in ledger-under-systemd.sh, a
# process of its own (see run-process.sh), and each of its "row N: …" lines
# becomes an ok here.
# shellcheck source=run-process.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-process.sh"
integrity_run_process rows-8-12 ledger-under-systemd.sh 8 10 12
