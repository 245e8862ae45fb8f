#!/bin/sh
# Can perf sample here?  Records `true` into DIR/probe.data; when it
# cannot, prints perf's messages and why, and exits 1.
# Usage: workloads/check-perf.sh DIR
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
command -v perf > /dev/null ||
  { echo "perf is missing; scripts/install-deps.sh installs linux-perf" >&2; exit 1; }
if ! perf record -N --no-bpf-event -e cpu-clock -o "$1/probe.data" true \
     > "$1/probe.log" 2>&1; then
  cat "$1/probe.log" >&2
  echo "perf record cannot sample here (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)); run as root or with CAP_PERFMON, outside a seccomp profile that denies perf_event_open" >&2
  exit 1
fi
