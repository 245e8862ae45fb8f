#!/bin/sh
# Compare what perfsym and perf script make of the samples in one
# perf.data.  Samples are matched by (pid, tid, time); the ones that count
# are the samples that perf resolves to a symbol, user-space and kernel
# ones counted apart.
#
# A sample agrees when perfsym gives it the same IP and DSO as perf and a
# symbol that starts at the same address: the same name and offset, or
# another name for the same address (an alias, e.g. __GI___qsort_r and
# qsort_r; counted as such).  [unknown] agrees with nothing.  A kernel
# sample agrees when perfsym gives it the same IP, DSO ([kernel.kallsyms]
# or a module's) and symbol with offset: perf chooses one name of each
# address of kallsyms, and so must perfsym.
#
# With -g (a recording made with --call-graph), a sample's call chain
# agrees when its sample agrees and perfsym's caller frames begin with
# those of perf: perf's callers are taken up to the first one it cannot
# name, and perfsym must give each of them the same DSO and the same name,
# or an alias: an offset within one byte of perf's, since perf looks a
# caller up at its return address minus one.  perfsym may go deeper than
# perf, not less deep.
#
# Prints up to MAX (default 10) disagreements of each kind, how many
# samples differ in each of perf's symbols, then one line
#   summary: samples=N user=N resolved=N agree=N aliases=N missing=N
#            perfsym_samples=N chains=N chains_agree=N
#            kernel=N kernel_resolved=N kernel_agree=N
# (on one line; chains counts the samples whose chains were compared).
# Both sides are read without demangling, so that a symbol has no blank.
# Usage: workloads/compare-with-perf.sh [-g] [-n MAX] PERF.DATA PERFSYM
set -eu

usage() {
  echo "usage: $0 [-g] [-n MAX] PERF.DATA PERFSYM" >&2
  exit 2
}
chains=0
max=10
while getopts gn: opt; do
  case $opt in
    g) chains=1 ;;
    n) max=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
data=$1
perfsym=$2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Run "$@" with its output in $tmp/$out; on failure show its stderr.
run() {
  out=$1
  shift
  if ! "$@" > "$tmp/$out" 2> "$tmp/$out.err"; then
    cat "$tmp/$out.err" >&2
    echo "$0: failed: $*" >&2
    exit 1
  fi
}

fields=pid,tid,time,ip,sym,symoff,dso
run perf.samples perf script --no-demangle --hide-call-graph -F $fields -i "$data"
if [ $chains -eq 1 ]; then
  run perf.chains perf script --no-demangle --no-inline -F $fields -i "$data"
  run perfsym.out "$perfsym" --no-demangle -s -g -i "$data"
else
  : > "$tmp/perf.chains"
  run perfsym.out "$perfsym" --no-demangle -s -i "$data"
fi

awk -v max="$max" '
  function hex(s,    n, i) {
    n = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++)
      n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n
  }
  # Splits SYM ("name+0xoff" or "[unknown]") into NAME and OFF.
  function split_sym(sym,    i) {
    i = match(sym, /\+0x[0-9a-f]+$/)
    if (i) {
      NAME = substr(sym, 1, i - 1)
      OFF = hex(substr(sym, i + 1))
    } else {
      NAME = sym
      OFF = 0
    }
  }
  # The text after field N: a DSO in parentheses, which may hold blanks.
  function dso_after(n,    s, i) {
    s = $0
    for (i = 1; i <= n; i++)
      sub(/^[ \t]*[^ \t]+/, "", s)
    sub(/^[ \t]*\(/, "", s)
    sub(/\)[ \t]*$/, "", s)
    return s
  }
  function kernel(ip, dso) {
    return dso ~ /^\[(kernel|guest)/ || (length(ip) == 16 && ip ~ /^f/)
  }
  function show_chain(n, sym, dso,    s, i) {
    s = ""
    for (i = 1; i <= n; i++)
      s = s (i > 1 ? " <- " : "") sym[i] " (" dso[i] ")"
    return s
  }
  function compare_chain(    i, m, ok) {
    chains_compared++
    # Frame 1 is the sample; perf names its callers 2 .. m + 1.
    m = 0
    while (m + 2 <= depth && fsym[m + 2] != "[unknown]" \
           && !kernel("", fdso[m + 2]))
      m++
    ok = key in agreed && ps_depth[key] >= m
    for (i = 1; ok && i <= m; i++) {
      split_sym(fsym[i + 1])
      perf_name = NAME
      perf_off = OFF
      split_sym(ps_fsym[key, i])
      ok = ps_fdso[key, i] == fdso[i + 1] && NAME != "[unknown]" \
           && (NAME == perf_name || (OFF - perf_off) ^ 2 <= 1)
    }
    if (ok)
      chains_agree++
    else if (shown_chain++ < max) {
      qsym[1] = ps_sym[key]
      qdso[1] = ps_dso[key]
      for (i = 1; i <= ps_depth[key]; i++) {
        qsym[i + 1] = ps_fsym[key, i]
        qdso[i + 1] = ps_fdso[key, i]
      }
      printf "chain %s: perf    %s\n", key, show_chain(depth, fsym, fdso)
      printf "chain %s: perfsym %s\n", key,
        show_chain(ps_depth[key] + 1, qsym, qdso)
    }
  }

  # perfsym: "PID TID TIME IP DSO SYMBOL", then with -g "\tIP SYMBOL (DSO)"
  # per caller.
  FILENAME == ARGV[1] && /^\t/ {
    n = ++ps_depth[key]
    sub(/^\t/, "")
    ps_fsym[key, n] = $2
    ps_fdso[key, n] = dso_after(2)
    next
  }
  FILENAME == ARGV[1] {
    key = $1 " " $2 " " $3
    ps_samples++
    ps_ip[key] = $4
    ps_dso[key] = $5
    ps_sym[key] = $6
    ps_depth[key] = 0
    next
  }

  # perf script, one line per sample: "PID/TID TIME: IP SYM+OFF (DSO)".
  FILENAME == ARGV[2] {
    split($1, id, "/")
    time = $2
    sub(/:$/, "", time)
    key = id[1] " " id[2] " " time
    samples++
    ip = $3
    sym = $4
    dso = dso_after(4)
    if (kernel(ip, dso)) {
      kernel_samples++
      if (sym == "[unknown]")
        next
      kernel_resolved++
      if (key in ps_sym && hex(ps_ip[key]) == hex(ip) \
          && ps_dso[key] == dso && ps_sym[key] == sym)
        kernel_agree++
      else {
        split_sym(sym)
        differ[NAME " (" dso ")"]++
        if (shown_kernel++ < max)
          printf "kernel %s: perf %s %s (%s), perfsym %s %s (%s)\n",
            key, ip, sym, dso, ps_ip[key], ps_sym[key], ps_dso[key]
      }
      next
    }
    user++
    if (sym == "[unknown]")
      next
    resolved++
    counted[key] = 1
    if (!(key in ps_sym)) {
      missing++
      if (shown_missing++ < max)
        printf "missing %s: perf %s %s (%s), perfsym has no such sample\n",
          key, ip, sym, dso
      next
    }
    split_sym(sym)
    perf_name = NAME
    perf_start = hex(ip) - OFF
    split_sym(ps_sym[key])
    if (hex(ps_ip[key]) == hex(ip) && ps_dso[key] == dso \
        && NAME != "[unknown]" && hex(ps_ip[key]) - OFF == perf_start) {
      agreed[key] = 1
      agree++
      aliases += NAME != perf_name
    } else {
      differ[perf_name " (" dso ")"]++
      if (shown_sample++ < max)
        printf "sample %s: perf %s %s (%s), perfsym %s %s (%s)\n",
          key, ip, sym, dso, ps_ip[key], ps_sym[key], ps_dso[key]
    }
    next
  }

  # perf script with call chains: "PID/TID TIME:", then "\tIP SYM+OFF (DSO)"
  # per frame, the sample first, then an empty line.
  FILENAME == ARGV[3] && /^[ \t]*$/ {
    if (in_chain && key in counted)
      compare_chain()
    in_chain = 0
    next
  }
  FILENAME == ARGV[3] && /^\t/ {
    if (!in_chain)
      next
    n = ++depth
    fsym[n] = $2
    fdso[n] = dso_after(2)
    next
  }
  FILENAME == ARGV[3] {
    split($1, id, "/")
    time = $2
    sub(/:$/, "", time)
    key = id[1] " " id[2] " " time
    depth = 0
    in_chain = 1
    next
  }

  END {
    if (in_chain && key in counted)
      compare_chain()
    for (s in differ)
      printf "differ %d samples in %s\n", differ[s], s | "sort -k2,2nr -k4"
    close("sort -k2,2nr -k4")
    printf "summary: samples=%d user=%d resolved=%d agree=%d aliases=%d", \
      samples, user, resolved, agree, aliases
    printf " missing=%d perfsym_samples=%d chains=%d chains_agree=%d", \
      missing, ps_samples, chains_compared, chains_agree
    printf " kernel=%d kernel_resolved=%d kernel_agree=%d\n", \
      kernel_samples, kernel_resolved, kernel_agree
  }
' "$tmp/perfsym.out" "$tmp/perf.samples" "$tmp/perf.chains"
