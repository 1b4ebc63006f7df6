// One step of a Rodinia-hotspot-like thermal simulation on a 2D grid
// result[r][c] = temp[r][c] + step * (power + (N + S - 2T) * ry_1 + (E + W - 2T) * rx_1 +
// (amb - T) * rz_1), with neighbours clamped at the borders. Iterations only read temp
// and power and write their own result cell: a GPU-friendly 2-D nest. With c (inner,
// contiguous) mapped to Grid.x the accesses are coalesced, and the 5-point neighbourhood
// makes temp a shared-memory tile candidate.
//
// warpcheck-advise: --function hotspot_step --values rows=512,cols=512
// warpcheck-expect-advice: parallel: yes (`2-D nest r, c`; reads temp and power, writes result[r*cols + c] once; no calls)
// warpcheck-expect-advice: inbound: `temp [0, 4·cols·rows - 4] bytes`, `power [0, 4·cols·rows - 4] bytes`, `amb, cols, rows, rx_1, ry_1, rz_1, step`
// warpcheck-expect-advice: outbound: `result [0, 4·cols·rows - 4] bytes`
// warpcheck-expect-advice: coalescing: `c -> Grid.x, r -> Grid.y: 1 (stride 4 bytes)` for every access (the shifted temp loads may straddle one more 128-byte line when a row is not 128-byte aligned); `r -> Grid.x, c -> Grid.y: min(cols, 32) = 32`
// warpcheck-expect-advice: mapping: `mapping: c -> Grid.x, r -> Grid.y`
// warpcheck-expect-advice: shared: `temp (lines 25, 27, 28): adjacent threads overlap; tile x: [-1, blockDim.x], y: [-1, blockDim.y] = (blockDim.x + 2)·(blockDim.y + 2) elements`; a thread's 5 loads lie in a 3 x 3 square, of which adjacent threads share `x-axis neighbours: 6, y-axis neighbours: 6`

void hotspot_step(const float* temp, const float* power, float* result, int rows, int cols,
                  float step, float rx_1, float ry_1, float rz_1, float amb)
{
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int n = r > 0 ? r - 1 : r;
            int s = r < rows - 1 ? r + 1 : r;
            int w = c > 0 ? c - 1 : c;
            int e = c < cols - 1 ? c + 1 : c;
            float t = temp[r * cols + c];
            float delta = step * (power[r * cols + c] +
                                  (temp[s * cols + c] + temp[n * cols + c] - 2.0f * t) * ry_1 +
                                  (temp[r * cols + e] + temp[r * cols + w] - 2.0f * t) * rx_1 +
                                  (amb - t) * rz_1);
            result[r * cols + c] = t + delta;
        }
    }
}
