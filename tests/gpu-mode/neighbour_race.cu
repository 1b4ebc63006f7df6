// Block k also writes the word of block k + 1: a write-write race between two neighbouring
// blocks. 512 blocks of two warps are 1,024 units; `check --gpu --gpu-memory 5K` fits two
// private copies of `out` (2 KiB plus a guard), so checking every unit would take
// log2(1024) = 10 memory-adaptive rounds, more than `--gpu-rounds` (4): GPU mode watches
// a sample of the blocks (`--race-blocks`: the first and last blocks and pairs of
// neighbours) and gives the other blocks one shared copy. With k = 0 (the header) the
// race is between blocks 0 and 1, which every sample watches; with a k whose pair the
// sample leaves out, only `--race-blocks all` finds it (`crates/cli/tests/it/gpu_mode.rs`).
// Every byte of the values written is nonzero, so that the value comparison sees each
// block write all four bytes of its word (`out` starts as zeros).
//
// warpcheck-launch: --kernel neighbourRace --grid 512 --block 64 --arg out=u32[512]:zeros --arg k=0

__global__ void neighbourRace(unsigned* out, unsigned k)
{
    if (threadIdx.x != 0)
        return;
    out[blockIdx.x] = 0x01010101u * (blockIdx.x % 255 + 1); //~ global-race
    if (blockIdx.x == k)
        out[k + 1] = 0xffffffffu; //~ global-race
}
