// Particle position update: array of structs (strided) vs struct of arrays (coalesced)
// advanceAoS works on a 32-byte Particle {x,y,z,vx,vy,vz,mass,charge}: when lane i
// touches p[i].x, consecutive lanes are 32 bytes apart, so every field load and store
// of a warp spans 1024 bytes = 32 sectors (uncoalesced(32) on the three marked lines).
// advanceSoA does the same update on separate x/y/z/vx/vy/vz arrays: 4 sectors per
// request, no findings. Particles are passed as f32 buffers of 8 floats each. No races.
//
// warpcheck-launch: --kernel advanceAoS --grid 4 --block 128 --arg p=f32[4096]:rand --arg n=512 --arg dt=0.01
// warpcheck-launch: --kernel advanceSoA --grid 4 --block 128 --arg x=f32[512]:rand --arg y=f32[512]:rand --arg z=f32[512]:rand --arg vx=f32[512]:rand --arg vy=f32[512]:rand --arg vz=f32[512]:rand --arg n=512 --arg dt=0.01
// warpcheck-expect: findings

struct Particle {
    float x, y, z;
    float vx, vy, vz;
    float mass;
    float charge;
};

__global__ void advanceAoS(Particle* p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += p[i].vx * dt; //~ uncoalesced(32)
        p[i].y += p[i].vy * dt; //~ uncoalesced(32)
        p[i].z += p[i].vz * dt; //~ uncoalesced(32)
    }
}

__global__ void advanceSoA(float* x, float* y, float* z, const float* vx, const float* vy,
                           const float* vz, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
        z[i] += vz[i] * dt;
    }
}
