// Strided vector loop with a negative start (thesis Sec. 6.1 instantiation example)
// for (i = -n; i < n; i += 4) a[i + 2n] = b[i + n] + c[i + n]. After normalisation the
// loop runs k = 0 .. tmp-1 with tmp = 2n/4 and i = 4k - n; with the loop count of 100
// from the thesis, n = 200. Every iteration is independent. Consecutive iterations touch
// elements 4 apart (16 bytes), so a warp of 32 iterations spans 512 bytes: 4 requests of
// 128 bytes (16 sectors) where 1 would do.
//
// warpcheck-advise: --function add_every_fourth --values n=200
// warpcheck-expect-advice: parallel: yes (1-D, normalised to k in [0, 2n/4) with i = 4k - n; no loop-carried dependencies)
// warpcheck-expect-advice: inbound: b [0, 8n-16] bytes, c [0, 8n-16] bytes, n (instantiated, n = 200: b, c [0, 1584])
// warpcheck-expect-advice: outbound: a [4n, 12n-16] bytes (instantiated: [800, 2384])
// warpcheck-expect-advice: coalescing: stride 4 elements: 4 requests per warp for each of a, b, c (instead of 1)
// warpcheck-expect-advice: mapping: k -> Grid.x with 100 work items for n = 200; compact the data or have each thread handle 4 consecutive elements to coalesce

void add_every_fourth(int* a, const int* b, const int* c, int n)
{
    for (int i = -n; i < n; i += 4) {
        a[i + 2 * n] = b[i + n] + c[i + n];
    }
}
