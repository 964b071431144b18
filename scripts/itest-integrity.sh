#!/usr/bin/env bash
# itest-integrity.sh — issue 20 ("Nothing slips through"): each way around
# blocker, done as a user would, shown closed or recorded. Sources every
# scripts/lib/integrity/rows-*.sh; each prints one `ok "row N: …"` line per row.
# Exit 0 pass, 1 fail; a missing tool or server is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/fixtures.sh
source "$here/lib/fixtures.sh"
fx_begin itest-integrity
fx_programs blockerd blockerctl blocker-overlay
for rows in "$here"/lib/integrity/rows-*.sh; do
    # shellcheck source=/dev/null
    source "$rows"
done
echo "itest-integrity: pass"
