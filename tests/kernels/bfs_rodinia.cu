// One level of breadth-first search in the style of Rodinia's bfs (frontier masks)
// Kernel 1 expands the frontier (mask) over CSR edges, kernel 2 turns updated nodes into
// the next frontier and sets the `over` flag. The 16-node graph is at level 1: frontier
// {1, 2}, visited {0, 1, 2}. Nodes 1 and 2 share the unvisited neighbour 3 (both at edge
// position 1 of their lists), so both lanes store cost[3] and updating_mask[3] in the same
// iteration; kernel 2 has nodes 3, 4, 5 all store *over. These are Rodinia's well-known
// benign races: every racing store writes the same value (cost 2, true, 1), so they are
// benign-race warnings on the 3 marked lines (`--strict-races` makes them global-race).
//
// warpcheck-launch: --kernel bfsExpand --grid 1 --block 32 --arg starting=i32[16]:[0,2,5,8,11,13,15,17,19,21,23,25,27,29,31,33] --arg no_of_edges=i32[16]:[2,3,3,3,2,2,2,2,2,2,2,2,2,2,2,3] --arg edges=i32[36]:[1,2,0,3,4,0,3,5,1,2,6,1,7,2,8,3,9,4,10,5,11,6,12,7,13,8,14,9,15,10,15,11,15,12,13,14] --arg mask=u8[16]:[0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg updating_mask=u8[16]:zeros --arg visited=u8[16]:[1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg cost=i32[16]:[0,1,1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg no_of_nodes=16
// warpcheck-launch: --kernel bfsUpdate --grid 1 --block 32 --arg mask=u8[16]:[0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg updating_mask=u8[16]:zeros --arg visited=u8[16]:[1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg over=i32[1]:zeros --arg no_of_nodes=16
// warpcheck-expect: findings

__global__ void bfsExpand(const int* starting, const int* no_of_edges, const int* edges,
                          bool* mask, bool* updating_mask, const bool* visited, int* cost,
                          int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && mask[tid]) {
        mask[tid] = false;
        for (int i = starting[tid]; i < starting[tid] + no_of_edges[tid]; i++) {
            int id = edges[i];
            if (!visited[id]) {
                cost[id] = cost[tid] + 1; //~ benign-race
                updating_mask[id] = true; //~ benign-race
            }
        }
    }
}

__global__ void bfsUpdate(bool* mask, bool* updating_mask, bool* visited, int* over, int no_of_nodes)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && updating_mask[tid]) {
        mask[tid] = true;
        visited[tid] = true;
        *over = 1; //~ benign-race
        updating_mask[tid] = false;
    }
}
