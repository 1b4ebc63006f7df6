// Generic element-wise kernels: templates over element type and functor, explicit wrappers
// A function template transformN<T, Op> does a grid-stride transform; thin extern "C"
// kernels instantiate it for float (square) and double (affine), so the launch lines use
// plain unmangled names. A templated __device__ functor with a static member function and
// a template with a non-type parameter (Unroll) are also exercised. Correct: no findings.
//
// warpcheck-launch: --kernel squareFloats --grid 4 --block 128 --arg in=f32[n]:rand --arg out=f32[n] --arg n=1000
// warpcheck-launch: --kernel affineDoubles --grid 4 --block 128 --arg inD=f64[n]:rand --arg outD=f64[n] --arg n=1000 --arg scale=3.0 --arg shift=-1.5
// warpcheck-expect: clean

template <typename T>
struct Square {
    __device__ static T apply(T v, T, T) { return v * v; }
};

template <typename T>
struct Affine {
    __device__ static T apply(T v, T a, T b) { return a * v + b; }
};

template <typename T, typename Op, int Unroll>
__device__ void transformN(const T* in, T* out, int n, T a, T b)
{
    int stride = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (Unroll - 1) * stride < n; i += Unroll * stride) {
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            out[i + u * stride] = Op::apply(in[i + u * stride], a, b);
        }
    }
    for (; i < n; i += stride) {
        out[i] = Op::apply(in[i], a, b);
    }
}

extern "C" __global__ void squareFloats(const float* in, float* out, int n)
{
    transformN<float, Square<float>, 2>(in, out, n, 0.0f, 0.0f);
}

extern "C" __global__ void affineDoubles(const double* inD, double* outD, int n, double scale, double shift)
{
    transformN<double, Affine<double>, 1>(inD, outD, n, scale, shift);
}
