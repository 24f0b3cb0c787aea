#!/usr/bin/env bash
# scripts/gpu-bench.sh — prox's GPU checks and benchmark rows on a machine with
# an NVIDIA GPU (or any Vulkan GPU), inside 10 minutes, without building there.
#
#   scripts/gpu-bench.sh pack [BUILD]   here (a release build with prox::gpu):
#       copies into gpu-carry/ the GPU test programs, their SPIR-V, prox-bench-gpu,
#       the shared libraries they need beyond glibc (TBB, GMP, libstdc++, the
#       Vulkan loader: a bare GPU machine may lack them) and the meshes
#       (bunny00.off, armadillo.off, the CGAL meshes of the tests). ~30 MiB.
#   scripts/gpu-bench.sh run            there (gpu-carry/ beside this script's
#       repository): finds the NVIDIA Vulkan driver (writes an ICD file for
#       libGLX_nvidia.so.0 when the container has the library but no ICD json),
#       runs the GPU tests on it (kernels, mesh queries, crossing counts, signs),
#       then prox-bench-gpu on bunny-1m (cp-near and its signed row
#       cp-near+sign, ray-random and its crossing-count row ray-random+count,
#       1,000,000 queries each): upload time, GPU queries/s, the CPU engine on 1
#       and on all cores, GPU == CPU validation. Every step has its own timeout
#       inside one overall budget (PROX_GPU_BUDGET, default 540 s, under the 10
#       minutes a device call may take); a step that times out or fails is
#       reported and the next one still runs. Writes everything to $OUT (or
#       gpu-out/): gpu-bench.log (all output) and summary.txt (what a closing
#       note needs: date, device, driver, cores, each step's result and time,
#       the benchmark table), and prints the summary last.
#   On the device machine: command `scripts/gpu-bench.sh run`, carry
#   ["gpu-carry"], timeout_s 600.
# Environment: PROX_GPU_ULPS (tolerance of the mesh tests, default 0: bit
# equality), PROX_GPU_QUERIES (default 1000000), PROX_GPU_DEVICE (device
# choice), PROX_GPU_BUDGET (seconds for the whole run, default 540).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
carry="$root/gpu-carry"
mode="${1:-}"

pack() {
  local build="${1:-$root/build}"
  [ -x "$build/bench/gpu/prox-bench-gpu" ] || { echo "gpu-bench: no $build/bench/gpu/prox-bench-gpu (build with prox::gpu first)" >&2; exit 1; }
  build="$(cd "$build" && pwd)"
  rm -rf "$carry"
  mkdir -p "$carry/bin" "$carry/lib" "$carry/spirv" "$carry/data/meshes"
  cp "$build/bench/gpu/prox-bench-gpu" "$build/tests/gpu/gpu_test_gpu_kernels" \
     "$build/tests/gpu/gpu_test_gpu_mesh" "$build/tests/gpu/gpu_test_gpu_count" \
     "$build/tests/gpu/gpu_test_gpu_sign" "$carry/bin/"
  cp "$build"/tests/gpu/*.spv "$carry/spirv/"
  for m in bunny00.off armadillo.off elephant.off mesh_with_border.off degtri_sliding.off \
           cube-ouvert.off fandisk.off knot1.off cube.off icosahedron.off \
           elephant-with-holes.off; do
    cp "$build/cgal-data/data/meshes/$m" "$carry/data/meshes/"
  done
  # Shared libraries beyond glibc, and the Vulkan loader (opened at run time).
  for exe in "$carry"/bin/*; do
    ldd "$exe" | awk '/=> \//{print $3}'
  done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$carry/lib/"; done
  cp -L "$(ldconfig -p | awk '/libvulkan.so.1 /{print $NF; exit}')" "$carry/lib/libvulkan.so.1"
  # The absolute paths compiled into the tests (SPIR-V, CGAL data), recreated there.
  printf 'spirv_dir=%s\ndata_dir=%s\n' "$build/tests/gpu" "$build/cgal-data/data" >"$carry/paths"
  du -sh "$carry"
}

find_icd() {
  local f
  for f in /usr/share/vulkan/icd.d/nvidia_icd*.json /etc/vulkan/icd.d/nvidia_icd*.json \
           /usr/local/share/vulkan/icd.d/nvidia_icd*.json; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
  # Containers often mount the driver (libGLX_nvidia.so.0) without its ICD json.
  if ldconfig -p | grep -q libGLX_nvidia.so.0; then
    f="$out/nvidia_icd.json"
    printf '{"file_format_version":"1.0.0","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.3.0"}}\n' >"$f"
    echo "$f"
  fi
}

run() {
  out="${OUT:-$root/gpu-out}"
  mkdir -p "$out"
  [ -d "$carry/bin" ] || { echo "gpu-bench: no $carry (run 'scripts/gpu-bench.sh pack' on the build machine)" >&2; exit 1; }
  exec > >(tee "$out/gpu-bench.log") 2>&1
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "no nvidia-smi"
  nproc
  export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local icd
  icd="$(find_icd || true)"
  if [ -n "$icd" ]; then
    export VK_ICD_FILENAMES="$icd" VK_DRIVER_FILES="$icd"
    echo "Vulkan driver: $icd"
  else
    echo "gpu-bench: no NVIDIA Vulkan ICD found; running on whatever driver the loader finds"
  fi
  export PROX_REQUIRE_GPU=1
  # The tests read SPIR-V and meshes from the absolute paths compiled in
  # (recorded by pack): recreate them here when this machine lacks them.
  local spirv_dir data_dir
  spirv_dir="$(sed -n 's/^spirv_dir=//p' "$carry/paths")"
  data_dir="$(sed -n 's/^data_dir=//p' "$carry/paths")"
  case "$spirv_dir$data_dir" in /*/*) ;; *) echo "gpu-bench: bad $carry/paths" >&2; exit 1 ;; esac
  if [ ! -f "$spirv_dir/kernels.spv" ]; then mkdir -p "$spirv_dir" && cp "$carry"/spirv/*.spv "$spirv_dir/"; fi
  if [ ! -d "$data_dir/meshes" ]; then mkdir -p "$data_dir" && cp -r "$carry/data/meshes" "$data_dir/"; fi
  local rc=0 start budget
  start=$(date +%s)
  budget="${PROX_GPU_BUDGET:-540}"
  : >"$out/steps.txt"
  # step NAME MAX_SECONDS CMD...: runs CMD with a timeout of MAX_SECONDS, cut
  # to what is left of the budget (less 10 s for the summary); records the result.
  step() {
    local name="$1" max="$2" left t0 s=0
    shift 2
    left=$((budget - ($(date +%s) - start) - 10))
    if [ "$left" -lt 15 ]; then
      echo "$name: not run (budget of ${budget} s spent)" | tee -a "$out/steps.txt"
      rc=1
      return
    fi
    [ "$max" -gt "$left" ] && max="$left"
    echo "=== $name (timeout ${max} s)"
    t0=$(date +%s)
    timeout "$max" "$@" || s=$?
    local what="ok"
    [ "$s" -eq 124 ] && what="TIMED OUT after ${max} s"
    [ "$s" -ne 0 ] && [ "$s" -ne 124 ] && what="FAILED (exit $s)"
    [ "$s" -ne 0 ] && rc=1
    echo "$name: $what in $(($(date +%s) - t0)) s" | tee -a "$out/steps.txt"
  }
  step "gpu_test_gpu_kernels" 90 "$carry/bin/gpu_test_gpu_kernels"
  step "gpu_test_gpu_mesh" 100 "$carry/bin/gpu_test_gpu_mesh"
  step "gpu_test_gpu_count" 60 "$carry/bin/gpu_test_gpu_count"
  step "gpu_test_gpu_sign" 100 "$carry/bin/gpu_test_gpu_sign"
  local queries="${PROX_GPU_QUERIES:-1000000}"
  sleep 1  # let tee catch up
  if grep -q "gpu device: llvmpipe" "$out/gpu-bench.log" && [ "$queries" -gt 20000 ]; then
    echo "gpu-bench: the device is lavapipe (no GPU driver found): 20000 queries, not $queries"
    queries=20000
  fi
  step "prox-bench-gpu bunny-1m" 300 "$carry/bin/prox-bench-gpu" --meshes bunny-1m \
    --workloads cp-near,ray-random --signed --count --queries "$queries" --reps 3 \
    --data "$carry/data/meshes"
  sleep 1
  {
    echo "==== gpu-bench summary ($(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - start)) s)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
      echo "nvidia-smi: none"
    echo "cores: $(nproc); Vulkan driver: ${icd:-loader default}"
    grep -m1 "gpu device:" "$out/gpu-bench.log" || echo "gpu device: none reported"
    grep -E "^\[  (PASSED|FAILED)  \]" "$out/gpu-bench.log" || true
    cat "$out/steps.txt"
    sed -n '/^GPU rows  device:/,/^cpuN = /p' "$out/gpu-bench.log"
    echo "gpu-bench: exit $rc"
  } >"$out/summary.txt"
  cat "$out/summary.txt"
  return $rc
}

case "$mode" in
  pack) shift; pack "$@" ;;
  run) run ;;
  *) echo "usage: scripts/gpu-bench.sh pack [BUILD] | run" >&2; exit 2 ;;
esac
