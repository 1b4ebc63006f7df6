// Loop that accumulates into a file-scope static variable
// Each iteration adds to `total_energy` (file-scope static) and bumps `samples_seen`
// (a global): every iteration reads and writes the same variables, which the thesis's
// feasibility test rejects ("no writes to static or global variables") and which is also
// a loop-carried dependency. As a GPU kernel it must become a reduction.
//
// warpcheck-advise: --function accumulate_energy --values n=100000
// warpcheck-expect-advice: parallel: no (`writes to the static variable total_energy and the global samples_seen in every iteration: a loop-carried dependency through them`)
// warpcheck-expect-advice: inbound: `e [0, 4·n - 4] bytes`, `samples_seen (global)`, `total_energy (static)`, `n`
// warpcheck-expect-advice: outbound: `samples_seen (global), total_energy (static)`
// warpcheck-expect-advice: mapping: `rewrite as a sum reduction (per-block partial sums in shared memory, then atomics or a second pass)`; `a counter incremented in every iteration is the trip count after the loop` (samples_seen = n)

static double total_energy;
long samples_seen;

void accumulate_energy(const float* e, int n)
{
    for (int i = 0; i < n; i++) {
        total_energy += 0.5 * e[i] * e[i];
        samples_seen++;
    }
}
