#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...] — builds prox's libFuzzer targets
# (fuzz/, clang-14, ASan + UBSan) into build-fuzz/ and runs each for SECONDS
# (default 25) on a working copy of its seed corpus (fuzz/corpus/NAME plus the
# binary seeds fuzz_make_seeds writes). Prints one line per target: runs,
# coverage (libFuzzer's cov = edges, ft = features), corpus size, and whether
# it found anything; a finding's input is kept in build-fuzz/findings/NAME/
# and the script exits 1. PROX_FUZZ_TIMEOUT: the seconds one input may take
# (default 10; raise it on a loaded machine, where a starved process times
# out on an input that takes 57 ms). PROX_FUZZ_PARALLEL: targets run at once
# (default: the number of cores). Only the io, mesh, bvh, image and planar
# libraries and the targets are built, so a rebuild is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-25}
shift || true
all=(obj ply stl off read_mesh index_load points rays npy scene)
[[ $# -gt 0 ]] && targets=("$@") || targets=("${all[@]}")
build=build-fuzz
jobs=${PROX_FUZZ_JOBS:-$(nproc)}

if [[ ! -f $build/build.ninja ]]; then
  mkdir -p "$build"
  CC=clang-14 CXX=clang++-14 cmake -S fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
fi
ninja -C "$build" -j "$jobs" fuzz_make_seeds $(printf 'fuzz_%s ' "${targets[@]}") >&2

status=0
for t in "${targets[@]}"; do
  work=$build/corpus/$t
  mkdir -p "$work" "$build/findings/$t"
  cp -n fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  mkdir -p "$build/seeds/$t"
done
"$build/fuzz_make_seeds" "$build/seeds"
# One target's run; its one-line result goes to $build/fuzz_NAME.result.
run_one() {
  local t=$1 work=$build/corpus/$1 log=$build/fuzz_$1.log rc=0
  cp -n "$build/seeds/$t"/* "$work"/ 2>/dev/null || true
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz_$t" -max_total_time="$seconds" -timeout="${PROX_FUZZ_TIMEOUT:-10}" \
      -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/findings/$t/" "$work" > "$log" 2>&1 || rc=$?
  local runs last cov ft files
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' <<< "$last" | grep -o '[0-9]*' || echo '?')
  ft=$(grep -o 'ft: [0-9]*' <<< "$last" | grep -o '[0-9]*' || echo '?')
  files=$(ls "$work" | wc -l)
  if [[ $rc -ne 0 ]]; then
    { echo "fuzz_$t: FINDING (exit $rc) after $runs runs; see $log and $build/findings/$t/"
      grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" || true; } > "$build/fuzz_$t.result"
  else
    echo "fuzz_$t: ${seconds}s, $runs runs, cov $cov, ft $ft, corpus $files files, no finding" \
      > "$build/fuzz_$t.result"
  fi
}

# PROX_FUZZ_PARALLEL targets at a time (default: one per core; each libFuzzer
# process is single-threaded), results printed in the targets' order.
parallel=${PROX_FUZZ_PARALLEL:-$(nproc)}
for t in "${targets[@]}"; do
  rm -f "$build/fuzz_$t.result"
  while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
  run_one "$t" &
done
wait
for t in "${targets[@]}"; do
  if [[ ! -f $build/fuzz_$t.result ]]; then
    echo "fuzz_$t: no result (the run was interrupted)"; status=1; continue
  fi
  cat "$build/fuzz_$t.result"
  grep -q FINDING "$build/fuzz_$t.result" && status=1
done
exit $status
