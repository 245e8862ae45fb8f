#!/bin/sh
# perfsym --flamegraph, looked at and used as a person would.  Records
# the workload (ld.bfd, PIE) and the C++ workload
# (profiler/tests/cxx-workload.cc, whose recursion the search must count
# once) with call chains (perf record -g), then a second of the whole
# system (perf record -a -g), and has perfsym write the profile, the
# folded stacks and the flame graph of each.  Then for each:
#   - profiler/tests/check-flamegraph.py reads the SVG with an XML
#     parser (title, a tooltip and a box for every frame, widths and
#     places proportional to the samples, callers under callees and
#     holding them, colours by kind of module, names cut to their box,
#     the script) and the PNG headless Chromium renders of it (not
#     blank, a title, the hot frames drawn where the SVG says, as wide
#     as their samples make them; for the workloads, the hot frames must
#     be those of the profile);
#   - profiler/tests/drive-flamegraph.py opens it in headless Chromium
#     and drives it with the mouse and the keyboard over the DevTools
#     protocol: zooms into a frame and out, resets, searches names by
#     text and by regular expression, hovers a frame too narrow to
#     label, and checks each time what the page holds against the
#     folded stacks (see there).
# Its screenshots (zoom.png, search-N.png, tooltip.png) and the rest
# stay in build/profiler-flamegraph/NAME/.
# PERFSYM overrides build/profiler/perfsym.
# Usage: tests/profiler-flamegraph.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
check=$top/profiler/tests/check-flamegraph.py
drive=$top/profiler/tests/drive-flamegraph.py
work=$top/build/profiler-flamegraph
# The driver speaks to Chromium with Debian's python3-websocket.
python=/usr/bin/python3

fail() {
  echo "profiler-flamegraph: FAIL: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
for tool in chromium g++ $python; do
  command -v "$tool" > /dev/null \
    || fail "$tool is missing; scripts/install-deps.sh installs it"
done
$python -c 'import websocket' 2> /dev/null \
  || fail "python3-websocket is missing; scripts/install-deps.sh installs it"
rm -rf "$work"
mkdir -p "$work"
"$top/workloads/check-perf.sh" "$work" || fail "perf cannot sample here"
"$top/workloads/build-workloads.sh" "$work" bfd-pie > "$work/build.log" \
  || fail "building the workload failed, see $work/build.log"
g++ -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
  -o "$work/cxx-workload" "$top/profiler/tests/cxx-workload.cc" \
  >> "$work/build.log" 2>&1 || fail "g++ failed, see $work/build.log"

# Record "$@" with call chains into $work/$1.data.
record() {
  name=$1
  shift
  nice perf record -N --no-bpf-event -e cpu-clock -g -o "$work/$name.data" \
    "$@" > "$work/record-$name.log" 2>&1 ||
    fail "perf record failed, see $work/record-$name.log"
}
record workload -F 4000 -- "$work/bfd-pie/workload" 500
record cxx -F 4000 -- "$work/cxx-workload" 500
record system -a -F 1000 -- sh -c \
  'dd if=/dev/zero of=/dev/null bs=512 count=50000 2> /dev/null
   find /usr/lib > /dev/null 2>&1; true'

# Render $1.svg to $1.png at its own size.
render() {
  size=$(python3 -c 'import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
print("%s,%s" % (r.get("width"), r.get("height")))' "$work/$1.svg") \
    || fail "$work/$1.svg cannot be parsed"
  # As root, Chromium runs only without its sandbox.
  if ! timeout 120 chromium --headless --no-sandbox --disable-gpu \
       --disable-quic --no-first-run --disable-background-networking \
       --disable-component-update --disable-sync \
       --user-data-dir="$work/$1.chromium" \
       --hide-scrollbars --force-device-scale-factor=1 \
       --window-size="$size" --screenshot="$work/$1.png" \
       "file://$work/$1.svg" > "$work/$1.chromium.log" 2>&1 ||
     [ ! -s "$work/$1.png" ]; then
    fail "chromium could not render $work/$1.svg, see $work/$1.chromium.log"
  fi
  rm -rf "$work/$1.chromium"
}

status=0
for name in workload cxx system; do
  "$perfsym" --flamegraph="$work/$name.svg" -i "$work/$name.data" \
    > "$work/$name.profile" 2> "$work/$name.err" \
    || fail "perfsym --flamegraph failed, see $work/$name.err"
  "$perfsym" --folded -i "$work/$name.data" > "$work/$name.folded" \
    2> "$work/$name.err" || fail "perfsym --folded failed, see $work/$name.err"
  render "$name"
  echo "==== $name"
  # The whole system's profile holds many frames too narrow to draw.
  profile=
  [ $name = system ] || profile="--profile=$work/$name.profile"
  # shellcheck disable=SC2086
  python3 "$check" "$work/$name.svg" $profile --png "$work/$name.png" \
    || status=1
  # Searches, a line each: nested matches (lib_chain_a calls
  # lib_chain_b, main run_round), recursion (fib), a blank, a regular
  # expression's flag.
  case $name in
    workload) terms='lib_chain
/^(main|run_round)$/' ;;
    cxx) terms='fib
/^churn<(int|long)>$/
operator new' ;;
    system) terms='do_syscall_64
/^(dd|FIND)$/i
/^\[.*\]$/' ;;
  esac
  set --
  while IFS= read -r term; do
    set -- "$@" "--search=$term"
  done <<EOF
$terms
EOF
  $python "$drive" "$work/$name.svg" "$work/$name.folded" "$work/$name" \
    "$@" || status=1
done
[ $status -eq 0 ] || fail "the flame graphs are not right; they are in $work"
echo "profiler-flamegraph: PASS (screenshots in $work/*/)"
