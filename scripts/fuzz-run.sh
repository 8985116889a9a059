#!/usr/bin/env bash
# Runs every libFuzzer harness of a ROCDOC_FUZZ=ON build for a bounded time, two at a time.
#
#   scripts/fuzz-run.sh BUILD_DIR [SECONDS] [HARNESS...]     (default: 60 s, all harnesses)
#
# Time goes where findings were: a harness runs SECONDS times one plus the number of findings it
# has made (its inputs in tests/fuzz/regressions/<harness>/), at most four times SECONDS. CI gives
# 20 s: a harness that never found anything runs 20 s, fuzz_fleet_report (7 findings) 80 s.
# Naming harnesses runs each exactly SECONDS (`scripts/fuzz-run.sh build-fuzz 600 rules`).
#
# Each harness starts from its seed corpus (scripts/fuzz-seeds.py, from tests/fixtures) and its
# regressions. A crash, a leak, an input slower than 10 s, more than 2 GiB of memory or a broken
# invariant stops that harness and fails the run; the input that did it is kept in
# BUILD_DIR/fuzz-artifacts/<harness>/ and printed at the end with the commands that reproduce it
# and turn it into a regression test. Logs: BUILD_DIR/fuzz-logs/.
# FUZZ_JOBS sets how many harnesses run at once (default: the number of CPUs).
set -uo pipefail
cd "$(dirname "$0")/.."

build=${1:?usage: scripts/fuzz-run.sh BUILD_DIR [SECONDS] [HARNESS...]}
build=$(cd "$build" && pwd)
seconds=${2:-60}
shift $(($# < 2 ? $# : 2))
harnesses=("$@")
by_findings=0
if [ ${#harnesses[@]} -eq 0 ]; then
  by_findings=1
  for source in tests/fuzz/fuzz_*.cpp; do
    harnesses+=("$(basename "$source" .cpp | sed 's/^fuzz_//')")
  done
fi

# A harness's findings: the inputs kept in its regressions folder.
findings_of() {
  local folder="tests/fuzz/regressions/$1"
  [ -d "$folder" ] && find "$folder" -maxdepth 1 -type f | wc -l || echo 0
}
declare -A time_of
for harness in "${harnesses[@]}"; do
  found=$(findings_of "$harness")
  factor=$((by_findings ? (found < 3 ? found + 1 : 4) : 1))
  time_of[$harness]=$((seconds * factor))
done
# Longest first, so that two at a time finish together.
mapfile -t harnesses < <(for harness in "${harnesses[@]}"; do
  echo "${time_of[$harness]} $harness"
done | sort -k1,1nr -k2,2 | cut -d' ' -f2)
jobs=${FUZZ_JOBS:-$(nproc)}

work="$build/fuzz-work"
artifacts="$build/fuzz-artifacts"
logs="$build/fuzz-logs"
rm -rf "$work" "$artifacts" "$logs"
mkdir -p "$work" "$artifacts" "$logs"
python3 scripts/fuzz-seeds.py "$work/seeds" || exit 1

# Sanitizer reports stop the harness and name the source line.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=1:symbolize=1"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"

fuzz_one() {
  local harness=$1
  local binary="$build/tests/fuzz/fuzz_$harness"
  local corpus="$work/corpus/$harness"
  mkdir -p "$corpus" "$artifacts/$harness"
  if [ ! -x "$binary" ]; then
    echo "$harness: $binary is missing (build the rocdoc_fuzzers target)" >"$logs/$harness.log"
    return 1
  fi
  local regressions=()
  [ -d "tests/fuzz/regressions/$harness" ] && regressions=("tests/fuzz/regressions/$harness")
  # New inputs go to the first directory (a scratch corpus); seeds and regressions are read.
  "$binary" -max_total_time="${time_of[$harness]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$harness/" "$corpus" "$work/seeds/$harness" "${regressions[@]}" \
    >"$logs/$harness.log" 2>&1
}

declare -A pids
failed=()
for harness in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  fuzz_one "$harness" &
  pids[$harness]=$!
done
for harness in "${harnesses[@]}"; do
  if ! wait "${pids[$harness]}"; then
    failed+=("$harness")
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$logs/$harness.log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$logs/$harness.log" | tail -1 | grep -o '[0-9]*$')
  echo "fuzz_$harness: ${runs:-?} executions in ${time_of[$harness]} s ($(findings_of "$harness") findings kept), coverage ${cov:-?} edges"
done

if [ ${#failed[@]} -ne 0 ]; then
  echo
  for harness in "${failed[@]}"; do
    echo "FAILED: fuzz_$harness (log: $logs/$harness.log)"
    grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant broken|deadly signal|uncaught exception' \
      "$logs/$harness.log" | sed 's/^/  /'
    for input in "$artifacts/$harness"/*; do
      [ -f "$input" ] || continue
      echo "  input kept: $input"
      echo "  reproduce:  $build/tests/fuzz/fuzz_$harness $input"
      echo "  once fixed, keep it: cp $input tests/fuzz/regressions/$harness/<what-it-is>"
    done
  done
  exit 1
fi
total=0
for harness in "${harnesses[@]}"; do total=$((total + time_of[$harness])); done
echo "all ${#harnesses[@]} harnesses ran without a finding (${total} s of fuzzing, ${jobs} at a time)"
