#!/usr/bin/env bash
# Measures kernels on a machine with an NVIDIA GPU, nvcc and Nsight Compute, step by step
# (`cargo kernel-lint validate` does the same in one command).
#
#   harness/measure.sh OUT_DIR [kernel-lint options and paths...]
#   e.g. harness/measure.sh target/measure --config fixtures/seeds.toml fixtures/seeds
#
# Environment: ARCH (default sm_90a, which `wgmma` needs), KERNEL_LINT (default: cargo-kernel-lint on the PATH).
set -euo pipefail
out=${1:?usage: harness/measure.sh OUT_DIR [kernel-lint options and paths...]}
shift
arch=${ARCH:-sm_90a}
kl=${KERNEL_LINT:-cargo-kernel-lint}
mkdir -p "$out"

# 1. CUDA C twins of the kernels, with `#line` directives pointing at the Rust source.
"$kl" harness emit "$@" --out "$out"
# 2. Build with line information so that every SASS instruction maps to a Rust line.
nvcc -O3 -lineinfo -std=c++17 -arch="$arch" -o "$out/kernels" "$out/kernels.cu"
# 3. Per-instruction source counters of every launch.
ncu --section SourceCounters --import-source yes -f -o "$out/report" "$out/kernels"
# 4. The source page, CUDA and SASS interleaved, as CSV.
ncu -i "$out/report.ncu-rep" --page source --csv --print-source cuda,sass > "$out/source.csv"
# 5. One row per (launch, file, line, space, op): requests, sectors, ideal sectors.
"$kl" harness reduce "$out/source.csv" --out "$out/measured.csv"
# 6. Predicted against measured (global sectors, then shared wavefronts per line).
"$kl" harness compare "$out/measured.csv" --manifest "$out/manifest.json"
# 7. The shared-memory pipeline per launch: instructions, wavefronts and bank conflicts.
ncu --csv --metrics smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
  "$out/kernels" > "$out/shared-metrics.csv"
