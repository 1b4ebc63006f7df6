"""Final values of the order-independent atomics of tools/gpu/int_ops.cu, recomputed from its
inputs (read from the `mad_lo` lines, which print all three): python3 atomic.py OUTPUT."""
import sys
U = [[0]*4096 for _ in range(3)]
glob, sh = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'mad_lo':
        i = int(f[1]); U[0][i], U[1][i], U[2][i] = (int(t, 16) for t in f[2:5])
    elif f[0].startswith('atomic_') and f[0].endswith('_global'):
        glob[(f[0][7:-7], int(f[1]))] = (int(f[2], 16), int(f[3], 16))
    elif f[0].startswith('atomic_'):
        sh[(f[0][7:-7], int(f[1]))] = int(f[2], 16)
ops = {'add': lambda x, v: (x + v) & 0xffffffff, 'min': min, 'max': max, 'and': lambda x, v: x & v, 'or': lambda x, v: x | v, 'xor': lambda x, v: x ^ v}
bad = 0
for name, fn in ops.items():
    g = {j: glob[(name, j)][0] for j in range(32)}
    s = {}
    for blk in range(8):
        for tid in range(32): s[blk * 32 + tid] = U[0][((blk * 32 + tid) * 7) % 4096]
        for tid in range(256):
            gid = blk * 256 + tid; b = U[2][gid] % 32; v = U[1][gid]
            g[b] = fn(g[b], v); s[blk * 32 + b] = fn(s[blk * 32 + b], v)
    for j in range(32):
        if g[j] != glob[(name, j)][1]: bad += 1; print("global", name, j)
    for j in range(256):
        if s[j] != sh[(name, j)]: bad += 1; print("shared", name, j, hex(s[j]), hex(sh[(name, j)]))
print("atomic mismatches:", bad)
