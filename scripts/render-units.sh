#!/usr/bin/env bash
# Writes the units of systemd/ into OUTDIR with ExecStart= pointing at BINDIR.
#   scripts/render-units.sh BINDIR DOCDIR OUTDIR UNIT...
# Used by `make install` and by the systemd integration test, so both install
# exactly the same files.
set -euo pipefail
bindir=$1 docdir=$2 outdir=$3
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$outdir"
for unit in "$@"; do
    sed -e "s|@BINDIR@|$bindir|g" -e "s|@DOCDIR@|$docdir|g" "$here/systemd/$unit" >"$outdir/$unit.tmp"
    mv "$outdir/$unit.tmp" "$outdir/$unit"
done
