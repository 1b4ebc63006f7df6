// One level of top-down breadth-first search that claims nodes with atomicCAS
// The race-free rewrite of bfs_rodinia.cu: a node's level is claimed with
// atomicCAS(&levels[u], -1, level + 1), so exactly one frontier node marks each newly
// reached node in nextFrontier[], and the `changed` flag is raised with atomicExch. Same
// 16-node graph (CSR row offsets and columns), expanding the frontier {1, 2} at level 1;
// afterwards levels[3..5] == 2 and nextFrontier marks nodes 3, 4, 5. Correct: no findings.
//
// warpcheck-launch: --kernel bfsTopDownStep --grid 1 --block 32 --arg rowOffsets=i32[17]:[0,2,5,8,11,13,15,17,19,21,23,25,27,29,31,33,36] --arg columns=i32[36]:[1,2,0,3,4,0,3,5,1,2,6,1,7,2,8,3,9,4,10,5,11,6,12,7,13,8,14,9,15,10,15,11,15,12,13,14] --arg frontier=i32[16]:[0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg nextFrontier=i32[16]:zeros --arg levels=i32[16]:[0,1,1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg level=1 --arg changed=i32[1]:zeros --arg numNodes=16
// warpcheck-expect: clean

__global__ void bfsTopDownStep(const int* rowOffsets, const int* columns, const int* frontier,
                               int* nextFrontier, int* levels, int level, int* changed,
                               int numNodes)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= numNodes || !frontier[v]) {
        return;
    }
    for (int e = rowOffsets[v]; e < rowOffsets[v + 1]; ++e) {
        int u = columns[e];
        if (atomicCAS(&levels[u], -1, level + 1) == -1) {
            nextFrontier[u] = 1;
            atomicExch(changed, 1);
        }
    }
}
