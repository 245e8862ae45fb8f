#!/bin/sh
# Does perfsym print C++ names as perf does?  Builds the C++ workload
# (profiler/tests/cxx-workload.cc: templates, std::map, lambdas,
# operator new and delete, clones, overloads, aliases), records it with
# call chains (perf record -g) and compares, with names demangled as
# each prints them by default:
#   - every sample of perfsym -s -g with perf script's, by (pid, tid,
#     time): the sampled function's name, and each caller's that perf
#     names;
#   - perfsym's flat profile with perf report --sort comm,dso,sym;
#   - perfsym --folded with perf script's call chains collapsed.
# Each must agree for at least 99.5% of what perf names (the samples,
# the callers, the profile's samples, the stacks' samples).  The names
# the workload is there for (churn<int>, std::_Rb_tree<...>::_M_erase,
# operator new, spin of its .constprop clone...) must be among perfsym's.
# The files stay in build/profiler-cxx-names when the test fails.
# PERFSYM overrides build/profiler/perfsym.
# Usage: tests/profiler-cxx-names.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
work=$top/build/profiler-cxx-names
min=99.5

fail() {
  echo "profiler-cxx-names: FAIL: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
command -v g++ > /dev/null ||
  fail "g++ is missing; scripts/install-deps.sh installs it"
rm -rf "$work"
mkdir -p "$work"
"$top/workloads/check-perf.sh" "$work" || fail "perf cannot sample here"
g++ -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
  -o "$work/cxx-workload" "$top/profiler/tests/cxx-workload.cc" \
  > "$work/build.log" 2>&1 || fail "g++ failed, see $work/build.log"
nice perf record -N --no-bpf-event -e cpu-clock -F 4000 -g \
  -o "$work/cxx.data" -- "$work/cxx-workload" 1000 \
  > "$work/record.log" 2>&1 || fail "perf record failed, see $work/record.log"

# Run "$@" with its output in $work/$1 (the first word dropped).
run() {
  out=$1
  shift
  "$@" > "$work/$out" 2> "$work/$out.err" ||
    fail "$* failed, see $work/$out.err"
}
data=$work/cxx.data
run perf.script perf script --no-inline -F comm,pid,tid,time,ip,sym,dso \
  -i "$data"
run perf.report perf report --stdio --no-children -n -g none \
  --sort comm,dso,sym -i "$data"
run perfsym.samples "$perfsym" -s -g -i "$data"
run perfsym.profile "$perfsym" -i "$data"
run perfsym.folded "$perfsym" --folded -i "$data"

# The frames of every sample of $1, one line each: "PID TID TIME", a
# TAB, then the names, innermost first, separated by TABs.  $1 is perf
# script's output ("COMM PID/TID TIME:", then "\tIP NAME (DSO)" a
# frame) or perfsym -s -g's ("PID TID TIME IP DSO NAME+0xOFF", then
# "\tIP NAME+0xOFF (DSO)" a caller).  With $2 1, perf script's stacks
# in the folded format instead: "COMM;OUTERMOST;...;INNERMOST".
frames() {
  awk -v folded="${2:-0}" '
    function label(name, dso,    base) {
      if (name != "[unknown]")
        return name
      if (dso ~ /^\[/)
        return dso
      base = dso
      if (dso !~ /^\/\//)
        sub(/.*\//, "", base)
      return "[" base "]"
    }
    function flush(    i, s) {
      if (key == "")
        return
      if (folded) {
        s = comm
        for (i = n; i >= 1; i--)
          s = s ";" frame[i]
        print s
      } else {
        s = key
        for (i = 1; i <= n; i++)
          s = s "\t" name[i]
        print s
      }
      key = ""
    }
    # A frame: "IP NAME[+0xOFF] (DSO)", DSO maybe "/memfd:x (deleted)".
    function add(line,    dso, i) {
      sub(/^\t */, "", line)
      sub(/^[0-9a-f]+ /, "", line)
      i = match(line, / \(([^()]|\([^()]*\))*\)$/)
      dso = i ? substr(line, i + 2, length(line) - i - 2) : ""
      if (i)
        line = substr(line, 1, i - 1)
      sub(/\+0x[0-9a-f]+$/, "", line)
      name[++n] = line
      frame[n] = label(line, dso)
      gsub(/;/, ":", frame[n])
    }
    /^\t/ { add($0); next }
    /^$/ { next }
    # perf script: "COMM PID/TID TIME:".
    $NF ~ /:$/ && $(NF - 1) ~ /^[0-9]+\/[0-9]+$/ {
      flush()
      split($(NF - 1), id, "/")
      time = $NF
      sub(/:$/, "", time)
      key = id[1] " " id[2] " " time
      comm = $0
      sub(/ +[0-9]+\/[0-9]+ +[0-9.]+: *$/, "", comm)
      gsub(/;/, ":", comm)
      n = 0
      next
    }
    # perfsym -s: "PID TID TIME IP DSO NAME".
    {
      flush()
      key = $1 " " $2 " " $3
      n = 0
      add($4 " " substr($0, index($0, $6)) " (" $5 ")")
    }
    END { flush() }' "$1"
}
frames "$work/perf.script" > "$work/perf.frames"
frames "$work/perfsym.samples" > "$work/perfsym.frames"

# Samples and callers: "NAMED SAME CALLERS CALLERS_SAME", and the names
# that differ most on standard error.
compare_frames() {
  awk -F '\t' '
    FILENAME == ARGV[1] { ps[$1] = $0; next }
    {
      if (!($1 in ps)) {
        q[1] = ""
      } else
        split(ps[$1], q, "\t")
      for (i = 2; i <= NF; i++) {
        if ($i == "[unknown]")
          continue
        same = (i in q) && q[i] == $i
        if (i == 2) {
          named++
          agree += same
        } else {
          callers++
          callers_agree += same
        }
        if (!same)
          differ["perf " $i " | perfsym " ((i in q) ? q[i] : "(none)")]++
      }
      delete q
    }
    END {
      print named + 0, agree + 0, callers + 0, callers_agree + 0
      sort = "sort -rn | head -n 10 >&2"
      for (d in differ)
        printf "%6d  %s\n", differ[d], d | sort
      close(sort)
    }' "$work/perfsym.frames" "$work/perf.frames"
}

# The entries of a flat profile (perfsym's, or perf report's): "COMM DSO
# [.] NAME\tRANK\tSAMPLES", the blanks before NAME made one, RANK
# numbering the entries of one key (symbols of one name are apart,
# overloads among them), most samples first.  Entries named by an
# address are left out.
entries() {
  awk '/^ +[0-9.]+% +[0-9]+ / && match($0, / \[[.k]\] /) {
         name = substr($0, RSTART + 5)
         where = substr($0, 1, RSTART + 3)
         sub(/^ +[0-9.]+% +[0-9]+ +/, "", where)
         gsub(/ +/, " ", where)
         if (name !~ /^0x[0-9a-f]+$/)
           print where " " name "\t" $2
       }' "$1" | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2nr |
    awk -F '\t' '{ print $1 "\t" rank[$1]++ "\t" $2 }'
}

# The flat profiles: "NAMED SAME", the samples of perf report's named
# entries, and of those perfsym has with the same command, module, name
# and samples.
compare_profiles() {
  entries "$work/perfsym.profile" > "$work/perfsym.entries"
  entries "$work/perf.report" > "$work/perf.entries"
  awk -F '\t' '
    FILENAME == ARGV[1] { ps[$1 "\t" $2] = $3; next }
    {
      named += $3
      if (ps[$1 "\t" $2] == $3)
        same += $3
    }
    END { print named + 0, same + 0 }' \
    "$work/perfsym.entries" "$work/perf.entries"
}

# The folded stacks: "SAMPLES SAME".
frames "$work/perf.script" 1 | LC_ALL=C sort | uniq -c |
  awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0, n }' > "$work/perf.folded"
compare_folded() {
  awk '{ count = $NF; $NF = "" }
       FILENAME == ARGV[1] { perf[$0] += count; samples += count; next }
       { perfsym[$0] += count }
       END {
         for (s in perf)
           same += perf[s] < perfsym[s] ? perf[s] : perfsym[s]
         print samples + 0, same + 0
       }' "$work/perf.folded" "$work/perfsym.folded"
}

status=0
# check WHAT TOTAL SAME: at least $min% of TOTAL, and TOTAL > 0.
check() {
  pct=$(awk -v t="$2" -v s="$3" \
    'BEGIN { printf "%.2f", t ? 100 * s / t : 0 }')
  ok=$(awk -v t="$2" -v s="$3" -v m="$min" \
    'BEGIN { print (t > 0 && 100 * s >= m * t) }')
  result=pass
  [ "$ok" -eq 1 ] || { result=FAIL; status=1; }
  printf '%-44s %7d %7d %7s%%  %s\n' "$1" "$2" "$3" "$pct" "$result"
}

printf '%-44s %7s %7s %8s\n' "perfsym against $(perf --version)" \
  total same percent
# shellcheck disable=SC2046
set -- $(compare_frames 2> "$work/differ.txt")
check "samples named (-s)" "$1" "$2"
check "callers named (-s -g)" "$3" "$4"
# shellcheck disable=SC2046
set -- $(compare_profiles)
check "profile entries (perf report)" "$1" "$2"
# shellcheck disable=SC2046
set -- $(compare_folded)
check "samples of the same stack (--folded)" "$1" "$2"
if [ -s "$work/differ.txt" ]; then
  echo "==== names that differ most (samples and callers):"
  cat "$work/differ.txt"
fi

# The names the workload is for, in perfsym's profile, a line each.
string='std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >'
pair="std::pair<int const, $string >"
while IFS= read -r name; do
  if ! awk -v name="$name" '
         /^ +[0-9.]+%/ && match($0, / \[[.k]\] /) &&
           substr($0, RSTART + 5) == name { found = 1 }
         END { exit !found }' "$work/perfsym.profile"; then
    echo "profiler-cxx-names: $name is not in perfsym's profile"
    status=1
  fi
done <<EOF
churn<int>
churn<long>
(anonymous namespace)::weigh
spin
twice
Cxx.spin_1
operator new
std::_Rb_tree<int, $pair, std::_Select1st<$pair >, std::less<int>, std::allocator<$pair > >::_M_erase
EOF
[ $status -eq 0 ] ||
  fail "perfsym names C++ code otherwise than perf; the files are in $work"
rm -rf "$work"
echo "profiler-cxx-names: PASS"
