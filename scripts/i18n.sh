#!/usr/bin/env bash
# i18n.sh pot|check|mo DIR — blocker's translations (text domain `blocker`, po/).
#   pot [FILE]  po/blocker.pot (or FILE) from every Swift source: xgettext reads Swift as C
#           (the marked words are plain "…" literals with {name} placeholders,
#           never interpolations); keywords tr, trn (plural) and N_ (marked
#           only, translated where shown). `make pot` runs it.
#   check   msgfmt --check --statistics for each po/LL.po (a broken header or
#           plural form fails); BlockerCoreTests' TranslationFileTests check the rest.
#   mo DIR  DIR/LL/LC_MESSAGES/blocker.mo for each po/LL.po (make install, the package, the tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
languages() { for po in "$root"/po/*.po; do [ -e "$po" ] && basename "$po" .po; done; }
need() { command -v "$1" >/dev/null || { echo "i18n: $1 is missing: apt-get install gettext" >&2; exit 1; }; }

case "${1:-}" in
pot)
    need xgettext
    out=$(realpath -m "${2:-$root/po/blocker.pot}")
    cd "$root"
    # Only the files that mark words: xgettext's C lexer warns at Swift's """ blocks elsewhere.
    grep -rlE '\b(tr|trn|N_)\(' Sources --include='*.swift' | grep -v '^Sources/blocker-bench/' | LC_ALL=C sort >po/POTFILES
    xgettext --language=C --from-code=UTF-8 --no-wrap --sort-by-file --add-location=file --add-comments=Translators \
        --keyword= --keyword=tr:1 --keyword=trn:1,2 --keyword=N_:1 \
        --flag=tr:1:no-c-format --flag=trn:1:no-c-format --flag=trn:2:no-c-format --flag=N_:1:no-c-format \
        --package-name=blocker --package-version="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/BlockerCore/Version.swift)" \
        --msgid-bugs-address=https://github.com/blockerd/blocker/issues \
        --files-from=po/POTFILES --output="$out" 2>&1 | { grep -v 'unterminated' || true; } >&2
    # Files without line numbers and a fixed date: only a changed text changes the template.
    sed -i 's/^"POT-Creation-Date: .*"$/"POT-Creation-Date: 2026-01-01 00:00+0000\\n"/' "$out"
    rm po/POTFILES
    echo "$out: $(grep -c '^msgid ' "$out") texts"
    ;;
check)
    need msgfmt
    for lang in $(languages); do
        printf '%s: ' "$lang"
        msgfmt --check --statistics -o /dev/null "$root/po/$lang.po"
    done
    ;;
mo)
    need msgfmt
    dir=${2:?usage: i18n.sh mo DIR}
    for lang in $(languages); do
        install -d -m 755 "$dir/$lang/LC_MESSAGES"
        msgfmt --check -o "$dir/$lang/LC_MESSAGES/blocker.mo" "$root/po/$lang.po"
    done
    ;;
*) echo "usage: scripts/i18n.sh pot|check|mo DIR" >&2; exit 2 ;;
esac
