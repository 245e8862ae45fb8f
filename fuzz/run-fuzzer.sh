#!/bin/sh
# Run the libFuzzer binary FUZZER for SECONDS on the seed corpus SEEDS.
# New inputs go to WORKDIR/corpus (SEEDS is left as committed); a crash,
# leak or broken invariant is written to ARTIFACTS and fails the run.
# FUZZ_MAX_LEN is the largest input (512 bytes by default);
# FUZZ_FLAGS adds libFuzzer options.
# Usage: fuzz/run-fuzzer.sh FUZZER SECONDS SEEDS WORKDIR ARTIFACTS
set -eu

[ $# -eq 5 ] || { echo "usage: $0 FUZZER SECONDS SEEDS WORKDIR ARTIFACTS" >&2; exit 2; }
fuzzer=$1 seconds=$2 seeds=$3 workdir=$4 artifacts=$5
mkdir -p "$workdir/corpus" "$artifacts"

echo "run-fuzzer: $(basename "$fuzzer") for ${seconds}s, log in $workdir/fuzz.log"
# shellcheck disable=SC2086
if "$fuzzer" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-512}" \
     -len_control=10 -timeout=30 -rss_limit_mb=4096 -detect_leaks=1 \
     -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_FLAGS:-} \
     "$workdir/corpus" "$seeds" > "$workdir/fuzz.log" 2>&1; then
  grep -E '^#[0-9]+.*DONE|^Done|stat::number_of_executed_units|stat::average_exec_per_sec' \
    "$workdir/fuzz.log" || true
  echo "run-fuzzer: no crash"
else
  grep -E 'invariant broken|ERROR: |SUMMARY: |Test unit written' "$workdir/fuzz.log" >&2 || true
  echo "run-fuzzer: failed, see $workdir/fuzz.log; reproduce with $fuzzer FILE" >&2
  exit 1
fi
