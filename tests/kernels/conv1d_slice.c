// 1D signal convolution with an end-of-array area for out-of-range taps (thesis Sec. 6.2)
// For output i the taps k = i - slice .. i + slice - 1 read in[slice + k] when k is in
// range and in[size + k] otherwise (a special area stored after the signal). `size` and
// `slice` are not comparable symbolically, so static range analysis cannot bound the
// index at in[idx]; with run-time values (size = 1024, slice = 8) the sections are
// exact. Iterations over i are independent (x is private, out[i] written once).
//
// warpcheck-advise: --function convolve1d --values size=1024,slice=8
// warpcheck-expect-advice: parallel: yes (outer loop i; the inner k loop is a private reduction into x)
// warpcheck-expect-advice: inbound: in: static bounds unknown (size and slice incomparable); instantiated indices [8, 1031] and [1016, 1023] and [2048, 2054], i.e. bytes [32, 8216]
// warpcheck-expect-advice: outbound: out [0, 4*size-4] bytes (instantiated [0, 4092])
// warpcheck-expect-advice: coalescing: in[idx] and out[i] are contiguous in i: 1 request per warp with i -> Grid.x
// warpcheck-expect-advice: shared: adjacent iterations share 2*slice - 1 taps: stage in[] for a block (BlockDim.x + 2*slice - 1 elements) in shared memory

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
