// Sequential inclusive prefix sum: a loop-carried dependency
// out[i] = out[i - 1] + in[i] reads the value the previous iteration wrote (a true
// dependency of distance 1), so the iterations cannot run as independent GPU threads.
// A correct advisor refuses the direct mapping and points to a parallel scan.
//
// warpcheck-advise: --function prefix_sum --values n=4096
// warpcheck-expect-advice: parallel: no (`loop-carried RAW dependency: out read on line 16 in iteration i + 1 was written on line 16 in iteration i (distance 1)`)
// warpcheck-expect-advice: inbound: `in [4, 4·n - 4] bytes`, `out [0, 4·n - 8] bytes`, `n` (in[0] is read before the loop)
// warpcheck-expect-advice: outbound: `out [4, 4·n - 4] bytes`
// warpcheck-expect-advice: mapping: `none as written`; `use a parallel scan (Hillis-Steele, or a Blelloch work-efficient scan per block plus a scan of block sums)`

void prefix_sum(const float* in, float* out, int n)
{
    out[0] = in[0];
    for (int i = 1; i < n; i++) {
        out[i] = out[i - 1] + in[i];
    }
}
