#!/usr/bin/env bash
# Runs `warpcheck advise` on loops of Rodinia 3.1's OpenMP versions (docs/ADVISE.md,
# "Rodinia"). Rodinia is not part of this repository: give the path of a checkout of
# yuhc/gpu-rodinia (or rodinia_3.1). Each loop is cut out of its file by line range into
# a small C function in a temporary directory (wrapper signatures below: the loop's free
# variables become parameters); nothing from Rodinia is written inside the repository.
#
#   tools/rodinia_advise.sh RODINIA_DIR [WARPCHECK]
set -euo pipefail
R=${1:?usage: tools/rodinia_advise.sh RODINIA_DIR [WARPCHECK]}
W=${2:-warpcheck}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
src() { sed -n "$2,$3p" "$R/$1"; }

{ echo '#define MIN(a, b) ((a)<=(b) ? (a) : (b))'
  echo 'void pathfinder_step(int *src, int *dst, int **wall, int t, int cols) {'
  echo '    int min;'; src openmp/pathfinder/pathfinder.cpp 99 106; echo '}'; } > "$T/pathfinder_step.c"
{ echo '#include <math.h>'; echo '#include <stdlib.h>'
  echo '#define REC_LENGTH 49'; echo '#define LATITUDE_POS 28'
  echo 'void nn_distances(char *sandbox, float *z, int rec_count, float target_lat, float target_long) {'
  echo '    int i; char *rec_iter;'; src openmp/nn/nn_openmp.c 117 122; echo '}'; } > "$T/nn_distances.c"
{ echo '#define FLOAT float'; echo 'const FLOAT amb_temp = 80.0;'
  echo 'void hotspot_interior(FLOAT *result, FLOAT *temp, FLOAT *power, int row, int col, FLOAT Cap_1, FLOAT Rx_1, FLOAT Ry_1, FLOAT Rz_1, int r_start, int c_start) {'
  echo '    int r, c;'; src openmp/hotspot/hotspot_openmp.cpp 137 147; echo '}'; } > "$T/hotspot_interior.c"
{ echo 'void srad_derivatives(float *J, float *c, float *dN, float *dS, float *dW, float *dE, int *iN, int *iS, int *jW, int *jE, int rows, int cols, float q0sqr) {'
  echo '    int k; float Jc, G2, L, num, den, qsqr;'; src openmp/srad/srad_v2/srad.cpp 130 161; echo '}'; } > "$T/srad_derivatives.c"
{ echo 'void srad_update(float *J, float *c, float *dN, float *dS, float *dW, float *dE, int *iS, int *jE, int rows, int cols, float lambda) {'
  echo '    int k; float D, cS, cN, cW, cE;'; src openmp/srad/srad_v2/srad.cpp 166 186 | grep -v '#'; echo '    }'; echo '}'; } > "$T/srad_update.c"

set -x
"$W" advise "$T/pathfinder_step.c" --values cols=100000,t=3
"$W" advise "$T/nn_distances.c" --values rec_count=42764
"$W" advise -DBLOCK_SIZE_R=16 -DBLOCK_SIZE_C=16 "$T/hotspot_interior.c" --values row=512,col=512,r_start=16,c_start=16
"$W" advise -DBLOCK_SIZE_R=16 -DBLOCK_SIZE_C=16 "$T/hotspot_interior.c" --values row=64,col=64,r_start=16,c_start=16 --emit-cuda "$T/hotspot_interior.cu"
"$W" advise "$T/srad_derivatives.c" --values rows=502,cols=458
"$W" advise "$T/srad_update.c" --values rows=502,cols=458
