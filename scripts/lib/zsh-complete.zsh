# zsh -f zsh-complete.zsh FUNCDIR OUTFILE LINE… — types each LINE and Tab into a
# real interactive zsh (through zpty, with compinit and FUNCDIR on fpath) and
# prints "[LINE] -> MATCH…": what the completion system offered (compadd is
# wrapped to record its matches). Waits up to 10 s for each answer.
zmodload zsh/zpty
funcdir=$1 out=$2; shift 2
drain() { local chunk; while zpty -r -t z chunk 2>/dev/null; do :; done }
zpty z zsh -f -i
zpty -w z "fpath=($funcdir \$fpath); autoload -Uz compinit; compinit -u -D; PROMPT=''; zstyle ':completion:*' menu no"
zpty -w z "compadd() { local -a m; builtin compadd -O m \"\$@\"; (( \$#m )) && print -r -- \"\${(j: :)m}\" >> $out; builtin compadd \"\$@\" }"
sleep 0.5; drain
for line in "$@"; do
  : >| $out
  zpty -w -n z "$line"$'\t'
  for i in {1..100}; do [[ -s $out ]] && break; sleep 0.1; drain; done
  sleep 0.3; drain
  zpty -w -n z $'\C-u'
  print -r -- "[$line] -> $(tr '\n' ' ' < $out)"
done
zpty -d z
