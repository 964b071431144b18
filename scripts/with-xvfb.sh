#!/bin/bash
# Runs a command inside a private Xvfb + openbox session (DISPLAY set for it),
# and stops both by PID when it ends, pass or fail.
#   scripts/with-xvfb.sh COMMAND [ARGS...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/with-xvfb.sh COMMAND [ARGS...]" >&2; exit 2; }
source "$(dirname "$0")/lib/fixtures.sh"
fx_begin with-xvfb
fx_x_session "$fx_dir"

"$@"
