#!/usr/bin/env bash
# Writes the desktop entries of data/ into OUTDIR with Exec= and TryExec=
# naming the programs in BINDIR, so a menu finds them without ~/.local/bin on
# the session's PATH.
#   scripts/render-desktop.sh BINDIR OUTDIR ENTRY...
# Used by `make install-files`; the Debian package installs data/*.desktop as
# they are (its programs are in /usr/bin, on every PATH).
set -euo pipefail
bindir=$1 outdir=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)

# The Desktop Entry Specification's quoting of an Exec= argument: as is when
# it has no reserved character, else in double quotes with " ` $ \ escaped;
# then the string escape (\ doubled) on top, and % doubled (field codes).
exec_argument() {
    local word=$1
    if [[ ! $word =~ ^[A-Za-z0-9/._+,@=:~-]+$ ]]; then
        word=${word//\\/\\\\}
        word=${word//\"/\\\"}
        word=${word//\`/\\\`}
        word=${word//\$/\\\$}
        word="\"$word\""
    fi
    word=${word//\\/\\\\}
    printf '%s' "${word//%/%%}"
}

# A plain string value (TryExec=): only the string escape.
string_value() {
    local value=${1//\\/\\\\}
    printf '%s' "$value"
}

# GLib (GNOME, most menus) looks for the program before undoing %%: it would not find it.
[[ $bindir != *%* ]] || echo "render-desktop: $bindir has a %: GLib-based menus will not launch the entries;" \
    "a PREFIX without % avoids that" >&2
mkdir -p "$outdir"
for entry in "$@"; do
    out=$outdir/$entry
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
        Exec=*)
            command=${line#Exec=}
            program=${command%% *}
            rest=${command#"$program"}
            [[ $program == */* ]] || line="Exec=$(exec_argument "$bindir/$program")$rest"
            ;;
        TryExec=*)
            program=${line#TryExec=}
            [[ $program == */* ]] || line="TryExec=$(string_value "$bindir/$program")"
            ;;
        esac
        printf '%s\n' "$line"
    done <"$here/data/$entry" >"$out.tmp"
    mv "$out.tmp" "$out"
done
