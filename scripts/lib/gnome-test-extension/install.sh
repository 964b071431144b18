#!/bin/sh
# install.sh DEST_DIR GNOME_MAJOR — TEST ONLY: the test driver extension
# (blocker-test@blockerd.github.io) for GNOME Shell GNOME_MAJOR, copied into
# DEST_DIR (created): core.js, and the entry point with its metadata.json —
# legacy/ for 43–44, esm/ for 45–49. Used by scripts/lib/gnome-env.sh; POSIX
# sh, since it runs as the test user inside `sh -c`. Exit 2 on bad arguments.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 DEST_DIR GNOME_MAJOR" >&2
    exit 2
fi
dest=$1 major=$2
src=$(cd "$(dirname "$0")" && pwd)
case $major in
43 | 44) variant=legacy ;;
45 | 46 | 47 | 48 | 49) variant=esm ;;
*)
    echo "$0: GNOME Shell $major: the test driver has an entry point for 43–49 only" >&2
    exit 2
    ;;
esac
mkdir -p "$dest"
cp "$src/core.js" "$src/$variant/extension.js" "$src/$variant/metadata.json" "$dest/"
