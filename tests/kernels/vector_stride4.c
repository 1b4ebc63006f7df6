// Strided vector loop with a negative start (thesis Sec. 6.1 instantiation example)
// for (i = -n; i < n; i += 4) a[i + 2n] = b[i + n] + c[i + n]. After normalisation the
// loop runs k = 0 .. tmp-1 with tmp = 2n/4 and i = 4k - n; with the loop count of 100
// from the thesis, n = 200. Every iteration is independent. Consecutive iterations touch
// elements 4 apart (16 bytes), so a warp of 32 iterations spans 512 bytes: 4 requests of
// 128 bytes (16 sectors) where 1 would do.
//
// warpcheck-advise: --function add_every_fourth --values n=200
// warpcheck-expect-advice: parallel: yes (`1-D nest i`; no loop-carried dependencies)
// warpcheck-expect-advice: loop i (line 18): normalised to `k_i in [0, (2·n + 3) / 4) with i = -n + 4·k_i` (the thesis's tmp = 2n/4); `100 iterations` for n = 200
// warpcheck-expect-advice: inbound: `b [0, 16·((2·n + 3) / 4) - 16] bytes (instantiated [0, 1584])`, `c [0, 16·((2·n + 3) / 4) - 16] bytes (instantiated [0, 1584])`, `n` (8n - 16 for even n; the thesis's copy_b = [0, 4*tmp - 4])
// warpcheck-expect-advice: outbound: `a [4·n, 4·n + 16·((2·n + 3) / 4) - 16] bytes (instantiated [800, 2384])` (the thesis's copy_a = [4*n, 4*tmp + 4*n - 4])
// warpcheck-expect-advice: coalescing: stride 4 elements: `i -> Grid.x: 4 (stride 16 bytes)` requests per warp for each of a, b, c (instead of 1)
// warpcheck-expect-advice: mapping: `i -> Grid.x` with `100 work items` for n = 200; compact the data or have each thread handle 4 consecutive elements to coalesce

void add_every_fourth(int* a, const int* b, const int* c, int n)
{
    for (int i = -n; i < n; i += 4) {
        a[i + 2 * n] = b[i + n] + c[i + n];
    }
}
