#!/bin/bash
# Regenerates the nvcc PTX samples in this directory from the CUDA kernels in the workspace's
# tests/kernels/ (run from the workspace root on a machine with the CUDA toolkit; the files
# here came from nvcc 13.0, V13.0.88). Usage: bash crates/ptx/tests/data/nvcc/gen.sh
set -eu
out=crates/ptx/tests/data/nvcc
for k in printf_debug reduce_warp_shuffle half_precision cg_reduce local_array_median \
         nbody_float4 bfs_rodinia matmul_tiled histogram_shared_atomics dynamic_shared_reverse; do
  f=tests/kernels/$k.cu
  nvcc -ptx -arch=sm_80 -O3 -o $out/$k.sm_80.O3.ptx $f
  nvcc -ptx -arch=sm_80 -lineinfo -o $out/$k.sm_80.lineinfo.ptx $f
  nvcc -ptx -arch=sm_80 -G -o $out/$k.sm_80.G.ptx $f
  nvcc -ptx -arch=sm_90a -O3 -rdc=true -o $out/$k.sm_90a.rdc.ptx $f
done
