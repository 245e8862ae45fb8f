#!/bin/sh
# perfsym --flamegraph, looked at as a person would: records the workload
# (ld.bfd, PIE) with call chains (perf record -g), has perfsym write its
# profile and flame graph, renders the SVG with headless Chromium to a
# PNG, and checks both with profiler/tests/check-flamegraph.py: the SVG
# with an XML parser (title, a tooltip and a box for every frame, widths
# proportional to the samples, callers under callees, colours by kind of
# module, names cut to their box), the PNG for what it shows (not blank,
# a title, the workload's three hottest functions drawn where the SVG
# says, as wide as their samples make them; they must be the frames
# widest on their own, with the profile's counts).  Then the same for a
# second of the whole system (perf record -a -g), whose hot frames are
# those widest on their own, as its profile cannot tell: it has many
# frames too narrow to draw.
# PERFSYM overrides build/profiler/perfsym.
# Usage: tests/profiler-flamegraph.sh
set -eu

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
perfsym=${PERFSYM:-$top/build/profiler/perfsym}
check=$top/profiler/tests/check-flamegraph.py
work=$top/build/profiler-flamegraph

fail() {
  echo "profiler-flamegraph: FAIL: $*" >&2
  exit 1
}

[ -x "$perfsym" ] || fail "$perfsym is missing; make profiler builds it"
for tool in chromium python3; do
  command -v "$tool" > /dev/null \
    || fail "$tool is missing; scripts/install-deps.sh installs it"
done
rm -rf "$work"
mkdir -p "$work"
"$top/workloads/build-workloads.sh" "$work" bfd-pie > "$work/build.log" \
  || fail "building the workload failed, see $work/build.log"
nice perf record -N --no-bpf-event -e cpu-clock -F 4000 -g \
  -o "$work/workload.data" -- "$work/bfd-pie/workload" 500 \
  > "$work/record.log" 2>&1 || fail "perf record failed, see $work/record.log"
nice perf record -a -g -N --no-bpf-event -e cpu-clock -F 1000 \
  -o "$work/system.data" -- sh -c \
  'dd if=/dev/zero of=/dev/null bs=512 count=50000 2> /dev/null
   find /usr/lib > /dev/null 2>&1; true' \
  > "$work/record-system.log" 2>&1 \
  || fail "perf record -a failed, see $work/record-system.log"

# Render $1.svg to $1.png at its own size.
render() {
  size=$(python3 -c 'import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
print("%s,%s" % (r.get("width"), r.get("height")))' "$work/$1.svg") \
    || fail "$work/$1.svg cannot be parsed"
  # As root, Chromium runs only without its sandbox.
  if ! timeout 120 chromium --headless --no-sandbox --disable-gpu \
       --hide-scrollbars --force-device-scale-factor=1 \
       --window-size="$size" --screenshot="$work/$1.png" \
       "file://$work/$1.svg" > "$work/$1.chromium.log" 2>&1 ||
     [ ! -s "$work/$1.png" ]; then
    fail "chromium could not render $work/$1.svg, see $work/$1.chromium.log"
  fi
}

status=0
for name in workload system; do
  "$perfsym" --flamegraph="$work/$name.svg" -i "$work/$name.data" \
    > "$work/$name.profile" 2> "$work/$name.err" \
    || fail "perfsym --flamegraph failed, see $work/$name.err"
  render "$name"
  echo "==== $name"
  # The whole system's profile holds many frames too narrow to draw.
  profile=
  [ $name = workload ] && profile="--profile=$work/$name.profile"
  # shellcheck disable=SC2086
  python3 "$check" "$work/$name.svg" $profile --png "$work/$name.png" \
    || status=1
done
[ $status -eq 0 ] || fail "the flame graphs are not right; they are in $work"
rm -rf "$work"
echo "profiler-flamegraph: PASS"
