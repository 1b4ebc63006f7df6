// Matrix addition whose direct loop-to-grid mapping is uncoalesced (thesis Sec. 4.2, 5.1)
// The i-outer, j-inner row-major loop nest of the thesis, writing through a struct
// (c->data is a nested outbound). The nest is GPU friendly (no carried dependencies,
// affine bounds), but mapping the outer loop i to Grid.x makes the 32 threads of a warp
// touch ints N apart: min(N, 32) 128-byte requests per warp (32 for N = 1024; the thesis
// writes N/4, counting 128-element lines). Mapping j -> Grid.x, i -> Grid.y gives 1.
//
// warpcheck-advise: --function add --values N=1024
// warpcheck-expect-advice: parallel: yes (`2-D nest i, j`; no loop-carried dependencies; affine, normalised bounds; no calls)
// warpcheck-expect-advice: inbound: `a [0, 4·N^2 - 4] bytes`, `b [0, 4·N^2 - 4] bytes`, `c,` `N` (the thesis's a ⇒ [0, 4*N*N - 4])
// warpcheck-expect-advice: outbound: `c->data [0, 4·N^2 - 4] bytes (instantiated [0, 4194300]) (nested through c)`
// warpcheck-expect-advice: coalescing: direct mapping `i -> Grid.x, j -> Grid.y: min(N, 32) = 32 (stride 4·N bytes)` for a[idx], b[idx] and c->data[idx]; swapped `j -> Grid.x, i -> Grid.y: 1 (stride 4 bytes)`
// warpcheck-expect-advice: mapping: map j to Grid.x (threadIdx.x) and i to Grid.y: `mapping: j -> Grid.x, i -> Grid.y` with 1 request per warp for every access

typedef struct {
    int* data;
    int size;
} matrix_t;

void add(int* a, int* b, matrix_t* c, int N)
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            int idx = i * N + j;
            c->data[idx] = a[idx] + b[idx];
        }
    }
}
