"""Conversions (float <-> integer in every rounding mode, saturating, NaN -> 0; f32 <-> f64),
f32 rounding to integers and f64 add/sub/mul/fma/div/sqrt/rcp in every rounding mode of
tools/gpu/int_ops.cu against exact rational arithmetic: python3 conversions_f64.py OUTPUT.
Lines whose exact result is a NaN are only counted: the NaN's bits are the hardware's choice."""
import sys, math
from fractions import Fraction as Q
M32, M64 = 0xffffffff, 0xffffffffffffffff
def s32(x): x &= M32; return x - (1 << 32) if x >> 31 else x
def s64(x): x &= M64; return x - (1 << 64) if x >> 63 else x
class Fmt:
    def __init__(s, e, m): s.e, s.m = e, m; s.bias = (1 << (e - 1)) - 1; s.w = 1 + e + m
F32, F64 = Fmt(8, 23), Fmt(11, 52)
NAN = 'nan'
def decode(bits, f):
    sign = bits >> (f.w - 1); ex = (bits >> f.m) & ((1 << f.e) - 1); man = bits & ((1 << f.m) - 1)
    if ex == (1 << f.e) - 1: return NAN if man else ('-inf' if sign else 'inf')
    v = Q(man, 1 << f.m) * Q(2) ** (1 - f.bias) if ex == 0 else Q((1 << f.m) | man, 1 << f.m) * Q(2) ** (ex - f.bias)
    return (-v if sign else v) if v else ('-0' if sign else Q(0))
def rint(q, mode):  # round a rational to an integer
    fl = math.floor(q); fr = q - fl
    if fr == 0: return fl
    if mode == 'rz': return math.trunc(q)
    if mode == 'rd': return fl
    if mode == 'ru': return fl + 1
    if fr > Q(1, 2) or (fr == Q(1, 2) and fl % 2): return fl + 1
    return fl
def encode(v, f, mode):  # v: Q, 'inf', '-inf', '-0' -> bits
    if v == 'inf': return ((1 << f.e) - 1) << f.m
    if v == '-inf': return (1 << (f.w - 1)) | ((1 << f.e) - 1) << f.m
    if v == '-0': return 1 << (f.w - 1)
    if v == 0: return 0
    sign = 1 if v < 0 else 0; a = -v if sign else v
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator)) if True else 0
    while Q(2) ** e > a: e -= 1
    while Q(2) ** (e + 1) <= a: e += 1
    e = max(e, 1 - f.bias)
    scale = Q(2) ** (e - f.m)
    m_mode = mode if not sign else {'ru': 'rd', 'rd': 'ru'}.get(mode, mode)
    n = rint(a / scale, m_mode)
    if n >= (2 << f.m): n //= 2; e += 1
    if e > f.bias:  # overflow
        to_inf = mode == 'rn' or (mode == 'ru' and not sign) or (mode == 'rd' and sign)
        return (sign << (f.w - 1)) | ((((1 << f.e) - 1) << f.m) if to_inf else ((((1 << f.e) - 2) << f.m) | ((1 << f.m) - 1)))
    if n < (1 << f.m):  # subnormal or zero
        return (sign << (f.w - 1)) | n
    return (sign << (f.w - 1)) | ((e + f.bias) << f.m) | (n - (1 << f.m))
def val(x): return Q(0) if x == '-0' else x
def f2i(v, mode, lo, hi):
    if v == NAN: return 0
    if v == 'inf': return hi
    if v == '-inf': return lo
    n = rint(val(v), mode)
    return min(max(n, lo), hi)
def arith(op, xs, f, mode):
    if any(x == NAN for x in xs): return None
    def neg(x): return {'inf': '-inf', '-inf': 'inf', '-0': Q(0)}.get(x, '-0' if x == 0 else -x) if not isinstance(x, Q) or x != 0 else '-0'
    x, y = xs[0], xs[1] if len(xs) > 1 else None
    inf = lambda t: t in ('inf', '-inf')
    sgn = lambda t: -1 if (t == '-inf' or t == '-0' or (isinstance(t, Q) and t < 0)) else 1
    if op == 'sub': return arith('add', [x, neg(y)], f, mode)
    if op == 'add':
        if inf(x) or inf(y):
            if inf(x) and inf(y) and x != y: return None
            return encode(x if inf(x) else y, f, mode)
        r = val(x) + val(y)
        if r == 0:
            if sgn(x) < 0 and sgn(y) < 0 and val(x) == 0 and val(y) == 0: return encode('-0', f, mode)
            if val(x) == 0 and val(y) == 0: return encode('-0' if mode == 'rd' and sgn(x) != sgn(y) else Q(0), f, mode)
            return encode('-0' if mode == 'rd' else Q(0), f, mode)
        return encode(r, f, mode)
    if op == 'mul':
        s = sgn(x) * sgn(y)
        if inf(x) or inf(y):
            if val(x) == 0 if not inf(x) else False: return None
            if (not inf(y)) and val(y) == 0: return None
            return encode('inf' if s > 0 else '-inf', f, mode)
        r = val(x) * val(y)
        return encode(r if r != 0 else ('-0' if s < 0 else Q(0)), f, mode)
    if op == 'div':
        s = sgn(x) * sgn(y)
        if inf(x) and inf(y): return None
        if inf(x): return encode('inf' if s > 0 else '-inf', f, mode)
        if inf(y): return encode('-0' if s < 0 else Q(0), f, mode)
        if val(y) == 0:
            if val(x) == 0: return None
            return encode('inf' if s > 0 else '-inf', f, mode)
        r = val(x) / val(y)
        return encode(r if r != 0 else ('-0' if s < 0 else Q(0)), f, mode)
    if op == 'rcp': return arith('div', [Q(1), x], f, mode)
    if op == 'fma':
        z = xs[2]
        if any(inf(t) for t in xs):
            if (inf(x) and not inf(y) and val(y) == 0) or (inf(y) and not inf(x) and val(x) == 0): return None
            p = None
            if inf(x) or inf(y): p = 'inf' if sgn(x) * sgn(y) > 0 else '-inf'
            if p and inf(z) and p != z: return None
            return encode(p or z, f, mode)
        prod = val(x) * val(y); r = prod + val(z)
        if r == 0:
            psign = sgn(x) * sgn(y)
            if prod == 0 and val(z) == 0:
                return encode('-0' if psign < 0 and sgn(z) < 0 else Q(0), f, mode) if mode != 'rd' else encode('-0' if psign < 0 or sgn(z) < 0 else Q(0), f, mode)
            return encode('-0' if mode == 'rd' else Q(0), f, mode)
        return encode(r, f, mode)
    if op == 'sqrt':
        if x == 'inf': return encode('inf', f, mode)
        if x == '-0': return encode('-0', f, mode)
        if x == '-inf' or val(x) < 0: return None
        if val(x) == 0: return 0
        # exact: find the rounding of sqrt via integer sqrt at high precision
        a = val(x); k = 1300
        n = a.numerator * (1 << (2 * k)) // a.denominator
        r = math.isqrt(n); exact = r * r == n and (a.numerator * (1 << (2 * k))) % a.denominator == 0
        q = Q(r, 1 << k) + (0 if exact else Q(1, 1 << (k + 1)))
        return encode(q, f, mode)
RM = {'rn': 'rn', 'rz': 'rz', 'ru': 'ru', 'rd': 'rd'}
ops = {}
for m in RM:
    ops[f'float2int_{m}'] = ('x', lambda v, m=m: f2i(v, m, -2**31, 2**31 - 1) & M32)
    ops[f'float2uint_{m}'] = ('x', lambda v, m=m: f2i(v, m, 0, M32))
    ops[f'float2ll_{m}'] = ('x', lambda v, m=m: f2i(v, m, -2**63, 2**63 - 1) & M64)
    ops[f'float2ull_{m}'] = ('x', lambda v, m=m: f2i(v, m, 0, M64))
    ops[f'double2int_{m}'] = ('p', lambda v, m=m: f2i(v, m, -2**31, 2**31 - 1) & M32)
    ops[f'double2uint_{m}'] = ('p', lambda v, m=m: f2i(v, m, 0, M32))
    ops[f'double2ll_{m}'] = ('p', lambda v, m=m: f2i(v, m, -2**63, 2**63 - 1) & M64)
    ops[f'double2ull_{m}'] = ('p', lambda v, m=m: f2i(v, m, 0, M64))
    ops[f'int2float_{m}'] = ('i', lambda v, m=m: encode(Q(s32(v)), F32, m))
    ops[f'uint2float_{m}'] = ('i', lambda v, m=m: encode(Q(v), F32, m))
    ops[f'll2float_{m}'] = ('i', lambda v, m=m: encode(Q(s64(v)), F32, m))
    ops[f'ull2float_{m}'] = ('i', lambda v, m=m: encode(Q(v), F32, m))
    ops[f'll2double_{m}'] = ('i', lambda v, m=m: encode(Q(s64(v)), F64, m))
    ops[f'ull2double_{m}'] = ('i', lambda v, m=m: encode(Q(v), F64, m))
    ops[f'double2float_{m}'] = ('p', lambda v, m=m: None if v == NAN else encode(v, F32, m))
    ops[f'fsub_{m}'] = ('xy', lambda x, y, m=m: arith('sub', [x, y], F32, m))
    for op in ['add', 'sub', 'mul', 'div']:
        ops[f'd{op}_{m}'] = ('pq', lambda x, y, m=m, op=op: arith(op, [x, y], F64, m))
    ops[f'fma_{m}'] = ('pqr', lambda x, y, z, m=m: arith('fma', [x, y, z], F64, m))
    ops[f'dsqrt_{m}'] = ('p', lambda x, m=m: arith('sqrt', [x], F64, m))
    ops[f'drcp_{m}'] = ('p', lambda x, m=m: arith('rcp', [x], F64, m))
ops['int2double_rn'] = ('i', lambda v: encode(Q(s32(v)), F64, 'rn'))
ops['uint2double_rn'] = ('i', lambda v: encode(Q(v), F64, 'rn'))
ops['f32_to_f64'] = ('x', lambda v: None if v == NAN else encode(v, F64, 'rn'))
def fround(v, how):
    if v == NAN: return None
    if not isinstance(v, Q): return encode(v, F32, 'rn')
    if v == 0: return 0
    n = {'t': math.trunc, 'f': math.floor, 'c': math.ceil, 'r': lambda q: math.floor(abs(q) + Q(1, 2)) * (1 if q > 0 else -1)}[how](v)
    return encode(Q(n) if n != 0 else ('-0' if v < 0 else Q(0)), F32, 'rn')
ops['truncf'] = ('x', lambda v: fround(v, 't')); ops['floorf'] = ('x', lambda v: fround(v, 'f'))
ops['ceilf'] = ('x', lambda v: fround(v, 'c')); ops['roundf'] = ('x', lambda v: fround(v, 'r'))
stats = {}
for line in open(sys.argv[1]):
    fl = line.split()
    if fl[0] not in ops: continue
    kind, fn = ops[fl[0]]
    raw = [int(t, 16) for t in fl[2:-1]]
    args = []
    for k, r in zip(kind, raw):
        args.append(r if k == 'i' else decode(r, F32 if k in 'xyz' else F64))
    got = int(fl[-1], 16)
    st = stats.setdefault(fl[0], [0, 0, 0, []])
    try:
        exp = fn(*args)
    except Exception as e:
        exp = None
    if exp is None:
        st[2] += 1; continue
    st[0] += 1
    if exp != got:
        st[1] += 1
        if len(st[3]) < 3 or (int(fl[1]) >= 2048 and len(st[3]) < 6): st[3].append(f"{line.strip()} (expected {exp:x})")
print(f"{len(stats)} ops checked")
for op, (n, bad, skipped, ex) in stats.items():
    if bad: print(op, f"checked {n} bad {bad} nan-skipped {skipped}", *ex, sep='\n  ')
print("mismatching ops:", sum(1 for s in stats.values() if s[1]))
