#!/usr/bin/env bash
# Man pages, completions, versions: blockerctl(1) says what --help says (word
# for word, rendered by man), blocker.toml(5) names every key of the shipped
# config and carries its lines as the example, every page renders without a
# groff warning, the bash/zsh/fish completions generated from the command
# declarations complete commands, options and the config's names in the real
# shells, and --version, CHANGELOG.md and debian/changelog agree.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib/fixtures.sh"
fx_begin itest-docs
fx_programs blockerd blockerctl blocker-overlay
dir=$fx_dir
for tool in man groff bash zsh fish; do command -v "$tool" >/dev/null || fail "$tool is missing (scripts/deps.sh check installs it)"; done
unset XDG_CONFIG_DIRS
export HOME=$dir XDG_CONFIG_HOME=$dir/config NO_COLOR=1 PATH="$bin:$PATH"
mkdir -p "$dir/config/blocker" "$dir/man"
cp "$here/config/blocker.toml" "$dir/config/blocker/"

# --- versions
version=$(sed -n 's/.*static let current = "\(.*\)"/\1/p' "$here/Sources/BlockerCore/Version.swift")
[ -n "$version" ] || fail "no version in Sources/BlockerCore/Version.swift"
for program in blockerd blockerctl blocker-overlay; do
    [ "$("$bin/$program" --version)" = "$program $version" ] || fail "$program --version says $("$bin/$program" --version), not $version"
done
[ "$(sed -n 's/^## \([^ ]*\).*/\1/p' "$here/CHANGELOG.md" | head -1)" = "$version" ] || fail "CHANGELOG.md's top entry is not $version"
[ "$(head -1 "$here/debian/changelog" | sed 's/^blocker (\([^)]*\)).*/\1/')" = "$version" ] || fail "debian/changelog's top entry is not $version"
ok "--version of the three programs, CHANGELOG.md and debian/changelog all say $version"

# --- man pages: no groff warning, the version in the header
blockerctl man >"$dir/man/blockerctl.1"
pages=("$dir/man/blockerctl.1" "$here"/docs/man/*.[1-8])
[ ${#pages[@]} -eq 4 ] || fail "expected 4 man pages, found ${#pages[@]}"
for page in "${pages[@]}"; do
    warnings=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "${page##*/}: groff warns: $warnings"
    grep -q "^\.TH .* \"blocker $version\"" "$page" || fail "${page##*/}: its .TH does not say blocker $version"
done
ok "4 man pages render without warnings"

# Collapses whitespace: man fills and breaks lines where --help does not.
flat() { tr -s ' \n\t' '   ' | sed 's/^ //; s/ $//'; }
MANWIDTH=2000 man -E ascii -l "$dir/man/blockerctl.1" 2>/dev/null | flat >"$dir/blockerctl.txt"
lines=0
commands=$(blockerctl --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z ]*[a-z]\)  .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 10 ] || fail "blockerctl --help lists too few commands: $commands"
while read -r command; do
    # shellcheck disable=SC2086  # the command's words
    blockerctl $command --help >"$dir/help.txt" || fail "blockerctl $command --help failed"
    while IFS= read -r line; do
        case $line in ""|"arguments:"|"options:"|"  -h, --help"*) continue ;; esac
        line=$(printf '%s' "${line#usage: }" | flat)
        grep -qF -- "$line" "$dir/blockerctl.txt" || fail "blockerctl(1) lacks this line of blockerctl $command --help: $line"
        lines=$((lines + 1))
    done <"$dir/help.txt"
done <<<"$commands"
ok "blockerctl(1) has all $lines lines of the $(echo "$commands" | wc -l) commands' --help"

# blocker.toml(5): every key (set or commented out) and every line of the shipped config.
MANWIDTH=2000 man -E ascii -l "$here/docs/man/blocker.toml.5" 2>/dev/null >"$dir/toml.txt"
keys=$(sed -n 's/^[# ]*\([a-z][a-z-]*\) = .*/\1/p; s/^[# ]*\(\[\[*[a-z.]*\]\]*\).*/\1/p' "$here/config/blocker.toml" | sort -u)
for key in $keys; do
    grep -qF -- "$key" "$dir/toml.txt" || fail "blocker.toml(5) does not document $key (in config/blocker.toml): add it to docs/man/blocker.toml.5"
done
while IFS= read -r line; do
    # Settings and tables, commented out or not; not the prose comments.
    [[ $line =~ ^(#\ )*([a-z][a-z-]*\ =\ |\[) ]] || continue
    grep -qxF -- "       $line" "$dir/toml.txt" || fail "blocker.toml(5)'s EXAMPLE lacks this line of config/blocker.toml: $line"
done <"$here/config/blocker.toml"
ok "blocker.toml(5) documents the $(echo "$keys" | wc -w) keys and tables of config/blocker.toml and shows its lines"

# --- completions, in the real shells
for shell in bash zsh fish; do blockerctl completions "$shell" >"$dir/complete.$shell"; done
mkdir -p "$dir/zfunc" && cp "$dir/complete.zsh" "$dir/zfunc/_blockerctl"
expect() {  # expect SHELL LINE WANTED… — every WANTED word among what SHELL offered
    local shell=$1 line=$2 got; shift 2
    got=$(grep -F -- "[$line] ->" "$dir/$shell.out" | head -1)
    for word in "$@"; do
        [[ " ${got#*-> } " == *" $word "* ]] || fail "$shell: Tab after \"$line\" offered [${got#*-> }], not $word"
    done
}
cases=("blockerctl " "blockerctl ea" "blockerctl earn 10 " "blockerctl block " "blockerctl unblock " "blockerctl config "
       "blockerctl history --" "blockerctl config names " "blockerctl report --")
check_cases() {
    local shell=$1
    expect "$shell" "blockerctl " status earn block history probe config doctor
    expect "$shell" "blockerctl ea" earn
    expect "$shell" "blockerctl earn 10 " pushups squats
    expect "$shell" "blockerctl block " social video
    expect "$shell" "blockerctl unblock " social video
    expect "$shell" "blockerctl config " check names
    expect "$shell" "blockerctl history --" --days --json --help
    expect "$shell" "blockerctl config names " exercises groups
    expect "$shell" "blockerctl report --" --output --weeks
    if grep -F "[blockerctl ] ->" "$dir/$shell.out" | grep -qw -e completions -e man; then
        fail "$shell: the hidden commands are offered"
    fi
}
bash --norc -c "source '$dir/complete.bash'; complete -p blockerctl" | grep -qx "complete -F _blockerctl blockerctl" \
    || fail "bash: complete -p blockerctl does not show the function"
for line in "${cases[@]}"; do
    # shellcheck disable=SC2016  # expanded by the inner bash
    bash --norc -c 'source "$1"; read -ra COMP_WORDS <<<"$2"; [[ $2 == *" " ]] && COMP_WORDS+=("");
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _blockerctl; echo "[$2] -> ${COMPREPLY[*]}"' _ "$dir/complete.bash" "$line"
done >"$dir/bash.out"
check_cases bash
# compgen with the function, as readline would call it: the words for "blockerctl sta".
# shellcheck disable=SC2016
[ "$(bash --norc -c 'source "$1"; COMP_WORDS=(blockerctl sta); COMP_CWORD=1; _blockerctl; compgen -W "${COMPREPLY[*]}" -- sta' _ "$dir/complete.bash")" = status ] \
    || fail "bash: compgen over the completion of \"blockerctl sta\" is not status"
ok "bash completes commands, options, exercises and groups"

for line in "${cases[@]}"; do
    echo "[$line] -> $(fish --no-config -c "source '$dir/complete.fish'; complete -C '$line'" | cut -f1 | tr '\n' ' ')"
done >"$dir/fish.out"
check_cases fish
ok "fish completes commands, options, exercises and groups"

zsh -f "$here/scripts/lib/zsh-complete.zsh" "$dir/zfunc" "$dir/zsh.matches" "${cases[@]}" >"$dir/zsh.out" 2>"$dir/zsh.log" \
    || fail "zsh did not run the completion: $(cat "$dir/zsh.log")"
check_cases zsh
ok "zsh (compinit, a real ZLE through zpty) completes commands, options, exercises and groups"
