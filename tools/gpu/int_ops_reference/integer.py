"""Integer, bit, byte-permute and funnel-shift ops of tools/gpu/int_ops.cu against the PTX
ISA's pseudocode (no GPU needed): python3 integer.py OUTPUT, where OUTPUT is the program's
output (from `warpcheck run tools/gpu/int_ops.cu` or from the GPU). Prints the ops whose
results differ, with the first lines. Division by zero and INT_MIN / -1 (unspecified in PTX)
are not checked. __byte_perm masks its selector with 0x7777 (CUDA's header and warpcheck's
shim both do), so only the inline `prmt.b32` replicates signs."""
import sys
M32, M64 = 0xffffffff, 0xffffffffffffffff
def s32(x): x &= M32; return x - (1 << 32) if x >> 31 else x
def s64(x): x &= M64; return x - (1 << 64) if x >> 63 else x
def s24(x): x &= 0xffffff; return x - (1 << 24) if x >> 23 else x
def tdiv(a, b): q = abs(a) // abs(b); return q if (a < 0) == (b < 0) else -q
def trem(a, b): return a - b * tdiv(a, b)
def clz32(x): return 32 - (x & M32).bit_length()
def brev(x, n): return int(format(x, f'0{n}b')[::-1], 2)
def shl(a, n, w): return 0 if n >= w else (a << n) & ((1 << w) - 1)
def shr_u(a, n, w): return 0 if n >= w else a >> n
def shr_s(a, n, w, sv): return (sv >> min(n, w)) & ((1 << w) - 1)
def bfind_u(a): return (a.bit_length() - 1) & M32 if a else M32
def bfind_s(a):
    v = ~a & M32 if a >> 31 else a
    return (v.bit_length() - 1) if v else M32
def bfe(a, b, c, signed):
    pos, ln = b & 0xff, c & 0xff
    sbit = 0
    if signed and ln: sbit = (a >> min(pos + ln - 1, 31)) & 1
    d = 0
    for i in range(32):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= 31) else sbit
        d |= bit << i
    return d
def bfi(f, b, pos, ln):
    pos, ln = pos & 0xff, ln & 0xff
    d = b
    i = 0
    while i < ln and pos + i <= 31:
        d = (d & ~(1 << (pos + i))) | (((f >> i) & 1) << (pos + i)); i += 1
    return d & M32
def prmt(a, b, c):
    by = [((b << 32 | a) >> (8 * k)) & 0xff for k in range(8)]
    d = 0
    for n in range(4):
        nib = (c >> (4 * n)) & 0xf
        v = by[nib & 7]
        if nib & 8: v = 0xff if v & 0x80 else 0
        d |= v << (8 * n)
    return d
def prmt_mode(a, b, c, mode):
    by = [((b << 32 | a) >> (8 * k)) & 0xff for k in range(8)]
    s = c & 3
    tab = {'f4e': [[0,1,2,3],[1,2,3,4],[2,3,4,5],[3,4,5,6]],
           'b4e': [[0,7,6,5],[1,0,7,6],[2,1,0,7],[3,2,1,0]],
           'rc8': [[0]*4,[1]*4,[2]*4,[3]*4],
           'ecl': [[0,1,2,3],[1,1,2,3],[2,2,2,3],[3,3,3,3]],
           'ecr': [[0,0,0,0],[0,1,1,1],[0,1,2,2],[0,1,2,3]],
           'rc16': [[0,1,0,1],[2,3,2,3],[0,1,0,1],[2,3,2,3]]}[mode][s]
    return sum(by[k] << (8 * n) for n, k in enumerate(tab))
def funnel(lo, hi, n, left, clamp):
    n = min(n, 32) if clamp else n & 31
    v = hi << 32 | lo
    return ((v << n) >> 32) & M32 if left else (v >> n) & M32
def cmp6(a, b): return (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (a >= b) << 5

R = {
 'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul_lo': lambda a, b: a * b,
 'mad_lo': lambda a, b, c: a * b + c, 'neg': lambda a: -a, 'not_': lambda a: ~a,
 'and_': lambda a, b: a & b, 'or_': lambda a, b: a | b, 'xor_': lambda a, b: a ^ b,
 'umulhi': lambda a, b: (a * b) >> 32, 'mulhi': lambda a, b: (s32(a) * s32(b)) >> 32,
 'umul24': lambda a, b: (a & 0xffffff) * (b & 0xffffff), 'mul24': lambda a, b: s24(a) * s24(b),
 'mul24_hi_u': lambda a, b: ((a & 0xffffff) * (b & 0xffffff)) >> 16,
 'mul24_hi_s': lambda a, b: (s24(a) * s24(b)) >> 16,
 'mad24_lo_u': lambda a, b, c: (a & 0xffffff) * (b & 0xffffff) + c,
 'mad_hi_u': lambda a, b, c: ((a * b) >> 32) + c, 'mad_hi_s': lambda a, b, c: ((s32(a) * s32(b)) >> 32) + c,
 'mul_wide_u': lambda a, b: a * b, 'mul_wide_s': lambda a, b: s32(a) * s32(b),
 'wc_mulwide': lambda a, b, c: (a * b) >> (c & 63),
 'umul64hi': lambda l, m: (l * m) >> 64, 'mul64hi': lambda l, m: (s64(l) * s64(m)) >> 64,
 'mul_lo64': lambda l, m: l * m, 'add64': lambda l, m: l + m,
 'uhadd': lambda a, b: (a + b) >> 1, 'hadd': lambda a, b: (s32(a) + s32(b)) >> 1,
 'urhadd': lambda a, b: (a + b + 1) >> 1, 'rhadd': lambda a, b: (s32(a) + s32(b) + 1) >> 1,
 'usad': lambda a, b, c: abs(a - b) + c, 'sad': lambda a, b, c: abs(s32(a) - s32(b)) + c,
 'umin': min, 'umax': max, 'smin': lambda a, b: min(s32(a), s32(b)), 'smax': lambda a, b: max(s32(a), s32(b)),
 'ptx_abs_s': lambda a: abs(s32(a)),
 'udiv': lambda a, b: a // (b | 1), 'urem': lambda a, b: a % (b | 1),
 'wc_sdiv': lambda a, b: tdiv(s32(a), (b & 0xffff) | 1), 'wc_srem': lambda a, b: trem(s32(a), (b & 0xffff) | 1),
 'udiv_by_7': lambda a: a // 7, 'urem_by_96': lambda a: a % 96, 'urem_by_160': lambda a: a % 160,
 'urem_by_4095': lambda a: a % 4095, 'sdiv_by_7': lambda a: tdiv(s32(a), 7), 'srem_by_7': lambda a: trem(s32(a), 7),
 'sdiv_by_m3': lambda a: tdiv(s32(a), -3),
 'ptx_div_u': lambda a, b: None if b == 0 else a // b, 'ptx_rem_u': lambda a, b: None if b == 0 else a % b,
 'ptx_div_s': lambda a, b: None if b == 0 or (a == 0x80000000 and b == M32) else tdiv(s32(a), s32(b)),
 'ptx_rem_s': lambda a, b: None if b == 0 or (a == 0x80000000 and b == M32) else trem(s32(a), s32(b)),
 'udiv64': lambda l, m: l // (m | 1), 'urem64': lambda l, m: l % (m | 1),
 'shl_masked': lambda a, b: a << (b & 31), 'shr_masked': lambda a, b: a >> (b & 31),
 'wc_sar': lambda a, b: s32(a) >> (b & 31),
 'wc_rotl': lambda a, b: (a << (b & 31) | a >> ((32 - (b & 31)) & 31)),
 'ptx_shl': lambda a, b: shl(a, b, 32), 'ptx_shr_u': lambda a, b: shr_u(a, b, 32),
 'ptx_shr_s': lambda a, b: shr_s(a, b, 32, s32(a)),
 'ptx_shl64': lambda l, b: shl(l, b, 64), 'ptx_shr_u64': lambda l, b: shr_u(l, b, 64),
 'ptx_shr_s64': lambda l, b: shr_s(l, b, 64, s64(l)),
 'funnelshift_l': lambda a, b, c: funnel(a, b, c, True, False), 'funnelshift_r': lambda a, b, c: funnel(a, b, c, False, False),
 'funnelshift_lc': lambda a, b, c: funnel(a, b, c, True, True), 'funnelshift_rc': lambda a, b, c: funnel(a, b, c, False, True),
 'ptx_shf_l_clamp': lambda a, b, c: funnel(a, b, c, True, True), 'ptx_shf_r_wrap': lambda a, b, c: funnel(a, b, c, False, False),
 'popc': lambda a: bin(a).count('1'), 'clz': clz32, 'ffs': lambda a: (a & -a).bit_length(),
 'brev': lambda a: brev(a, 32), 'popcll': lambda l: bin(l).count('1'), 'clzll': lambda l: 64 - l.bit_length(),
 'ffsll': lambda l: (l & -l).bit_length(), 'brevll': lambda l: brev(l, 64),
 'ptx_bfind_u': bfind_u, 'ptx_bfind_s': bfind_s,
 'ptx_bfind_shiftamt_u': lambda a: 31 - bfind_u(a) if a else M32,
 'ptx_bfe_u': lambda a, b, c: bfe(a, b, c, False), 'ptx_bfe_s': lambda a, b, c: bfe(a, b, c, True),
 'ptx_bfi': lambda a, b, c: bfi(a, ~a & M32, b, c),
 'shift_mask_field': lambda a, b: (a >> (b & 31)) & 0x3ff,
 'byte_perm': lambda a, b, c: prmt(a, b, c & 0x7777), 'byte_perm_3210': lambda a, b: prmt(a, b, 0x3210), 'byte_perm_0123': lambda a, b: prmt(a, b, 0x0123),
 'byte_perm_7531': lambda a, b: prmt(a, b, 0x7531), 'byte_perm_89ab': lambda a, b: prmt(a, b, 0x89ab & 0x7777),
 'byte_perm_f0e1': lambda a, b: prmt(a, b, 0xf0e1 & 0x7777), 'byte_perm_1c5d': lambda a, b: prmt(a, b, 0x1c5d & 0x7777),
 'byte_perm_hi_bits': lambda a, b: prmt(a, b, 0xabcd4321 & 0x7777), 'ptx_prmt': prmt,
 'ucmp': cmp6, 'scmp': lambda a, b: cmp6(s32(a), s32(b)),
 'select_u': lambda a, b, c: a if c & 1 else b, 'select_cmp': lambda a, b, c: c if s32(a) < s32(b) else a,
}
for m in ['f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16']:
    R['ptx_prmt_' + m] = (lambda m: lambda a, b, c: prmt_mode(a, b, c, m))(m)
stats = {}
for line in open(sys.argv[1]):
    f = line.split()
    op = f[0]
    if op not in R: continue
    ins = [int(x, 16) for x in f[2:-1]]
    got = int(f[-1], 16)
    exp = R[op](*ins)
    st = stats.setdefault(op, [0, 0, []])
    if exp is None: continue
    width = len(f[-1]) * 4
    exp &= (1 << width) - 1
    st[0] += 1
    if exp != got:
        st[1] += 1
        if len(st[2]) < 3: st[2].append(f"{line.strip()} (expected {exp:0{width // 4}x})")
print(f"{len(stats)} ops checked of {len(R)} in the reference")
for op, (n, bad, ex) in stats.items():
    if bad: print(op, n, bad, *ex, sep='\n  ')
print("mismatching ops:", sum(1 for s in stats.values() if s[1]))
