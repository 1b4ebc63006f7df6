// 1D signal convolution with an end-of-array area for out-of-range taps (thesis Sec. 6.2)
// For output i the taps k = i - slice .. i + slice - 1 read in[slice + k] when k is in
// range and in[size + k] otherwise (a special area stored after the signal). `size` and
// `slice` are not comparable symbolically, so static range analysis cannot bound the
// index at in[idx]; with run-time values (size = 1024, slice = 8) the sections are
// exact. Iterations over i are independent (x is private, out[i] written once).
//
// warpcheck-advise: --function convolve1d --values size=1024,slice=8
// warpcheck-expect-advice: parallel: yes (outer loop i; the inner k loop is a private reduction into x: `loop k (line 20): a scalar written on line 27 is read by the next iteration of loop k`)
// warpcheck-expect-advice: inbound: in: `static bounds not comparable` (size and slice incomparable); instantiated indices [8, 1031] and [1016, 1023] and [2048, 2054], i.e. bytes `(instantiated [32, 8216] in runs [32, 4124] [8192, 8216])`
// warpcheck-expect-advice: outbound: `out [0, 4·size - 4] bytes (instantiated [0, 4092])`
// warpcheck-expect-advice: coalescing: in[idx] and out[i] are contiguous in i: `i -> Grid.x: 1 (stride 4 bytes)` request per warp
// warpcheck-expect-advice: mapping: `i -> Grid.x`
// warpcheck-expect-advice: shared: adjacent iterations share 2*slice - 1 taps: stage in[] for a block: `tile x: [0, blockDim.x + 2·slice - 2] = blockDim.x + 2·slice - 1 elements; overlap x-axis neighbours: 2·slice - 1`

void convolve1d(const int* in, int* out, int size, int slice)
{
    for (int i = 0; i < size; i++) {
        int x = 0;
        for (int k = i - slice; k < i + slice; k++) {
            int idx = 0;
            if (k >= 0 && k < size) {
                idx = slice + k;
            } else {
                idx = size + k;
            }
            x += in[idx];
        }
        out[i] = x;
    }
}
