#!/bin/sh
# Compare the call chains of two perf script outputs of one recording
# (perf script -F pid,tid,time,ip,sym,dso, with call chains), REF and
# OTHER, sample by sample, matched by (pid, tid, time).  Two chains are
# equal when they have as many frames and each frame has the same
# function name and DSO (the IPs are not compared; [unknown] equals
# [unknown] in the same DSO).  A sample of REF that OTHER lacks counts as
# a chain that differs.  Prints up to MAX (default 10) chains that differ,
# REF's and OTHER's, then one line
#   summary: chains=N equal=N missing=N stub=N
# where stub counts the chains that differ only as libdw and libunwind
# do on their own in a stub without a symbol: REF starts in an unnamed
# frame (a PLT entry without CFI, as lld links them) and OTHER is REF
# without the frame after it (libdw's frame-pointer fallback skips the
# caller that libunwind's PLT rule finds).  With -a ALSO, a third output
# of the recording, a chain of OTHER that differs from REF's but equals
# ALSO's counts as equal too, and the summary says how many did, also=N,
# before stub=N.
# Usage: clients/perf/compare-chains.sh [-n MAX] [-a ALSO] REF OTHER
set -eu

usage() {
  echo "usage: $0 [-n MAX] [-a ALSO] REF OTHER" >&2
  exit 2
}
max=10
also=
while getopts n:a: opt; do
  case $opt in
    n) max=$OPTARG ;;
    a) also=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
for f in "$1" "$2" $also; do
  [ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 1; }
done

awk -v max="$max" -v with_also="${also:+1}" '
  # A sample: "PID/TID TIME:" (perf script puts the event fields after),
  # then "\tIP SYM (DSO)" per frame, then an empty line.
  function flush() {
    if (key == "")
      return
    if (FILENAME == ARGV[1]) {
      ref[key] = chain
      order[++n] = key
    } else if (FILENAME == ARGV[2])
      other[key] = chain
    else
      alt[key] = chain
    key = ""
  }
  /^[ \t]*$/ { flush(); next }
  /^\t/ {
    frame = $0
    sub(/^[ \t]*[^ \t]+[ \t]+/, "", frame)
    chain = chain (chain == "" ? "" : " <- ") frame
    next
  }
  {
    flush()
    key = $1 " " $2
    sub(/:$/, "", key)
    chain = ""
  }
  END {
    flush()
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (!(k in other))
        missing++
      else if (other[k] == ref[k]) {
        equal++
        continue
      } else if (k in alt && other[k] == alt[k]) {
        equal++
        also++
        continue
      } else if (stub_skipped(ref[k], other[k]))
        stub++
      if (shown++ < max) {
        printf "chain %s: ref   %s\n", k, ref[k]
        printf "chain %s: other %s\n", k, k in other ? other[k] : "(no such sample)"
      }
    }
    printf "summary: chains=%d equal=%d missing=%d%s stub=%d\n", n, equal,
      missing, with_also ? " also=" also + 0 : "", stub
  }
  # Whether OTHER is REF without its second frame, where REF starts in a
  # stub without a symbol: a PLT entry of an object that gives it no CFI
  # (lld), which libunwind steps through by its PLT rule and libdw by
  # the frame pointer, skipping the caller.
  function stub_skipped(ref, other,    leaf, rest) {
    if (ref !~ /^\[unknown\] \([^)]*\) <- /)
      return 0
    leaf = substr(ref, 1, index(ref, " <- ") - 1)
    rest = substr(ref, length(leaf) + 5)
    if (index(rest, " <- ") == 0)
      return 0
    return other == leaf " <- " substr(rest, index(rest, " <- ") + 4)
  }
' "$1" "$2" ${also:+"$also"}
