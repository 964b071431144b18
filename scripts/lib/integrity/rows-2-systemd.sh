# shellcheck shell=bash
# Issue 20, row 2 under a real systemd --user (rows-1-3.sh does it with a
# plain blocker-overlay process): `systemctl --user stop blocker-overlay`
# and `kill -TERM` under a shield, with blockerd.service and
# blocker-overlay.service as `make install` renders them, on Xvfb + openbox.
# Sourced by scripts/itest-integrity.sh after `source scripts/lib/fixtures.sh;
# fx_begin itest-integrity`, with $bin the built programs' directory. It runs
# in systemd-row-2.sh, a process of its own (see run-process.sh), whose
# "row 2 (systemd --user): …" line becomes an ok here.
# shellcheck source=run-process.sh
source "$(dirname "${BASH_SOURCE[0]}")/run-process.sh"
integrity_run_process row-2-systemd systemd-row-2.sh 2
