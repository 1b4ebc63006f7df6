// Polynomial evaluation with coefficients in initialised __constant__ memory
// A degree-7 polynomial (Taylor series of sin) is evaluated with Horner's rule; the
// coefficients and the degree are __constant__ variables with static initialisers, so
// they are part of the module, not copied by the host. All lanes read the same constant
// word at each step (broadcast). Correct: no findings.
//
// warpcheck-launch: --kernel evalPolynomial --grid 4 --block 256 --arg x=f32[n]:rand --arg y=f32[n] --arg n=1024
// warpcheck-expect: clean

__constant__ int kDegree = 7;
__constant__ float kCoeffs[8] = {
    0.0f, 1.0f, 0.0f, -1.0f / 6.0f, 0.0f, 1.0f / 120.0f, 0.0f, -1.0f / 5040.0f,
};

__global__ void evalPolynomial(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float acc = kCoeffs[kDegree];
        for (int k = kDegree - 1; k >= 0; --k) {
            acc = acc * v + kCoeffs[k];
        }
        y[i] = acc;
    }
}
