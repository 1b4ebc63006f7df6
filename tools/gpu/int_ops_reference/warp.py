"""Warp shuffles (the PTX pseudocode of shfl.sync with the `c` operand CUDA's headers pass:
((32 - width) << 8) | 31, or 0 for up), votes, reductions and matches of tools/gpu/int_ops.cu:
python3 warp.py OUTPUT."""
import sys
from collections import defaultdict
M32 = 0xffffffff
def s32(x): return x - (1 << 32) if x >> 31 else x
rows = defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 7: continue
    op, i = f[0], int(f[1])
    a, b, p1, p2, r = (int(t, 16) for t in f[2:])
    rows[op][i] = (a, b, p1, p2, r)
def shfl(mode, vals, lane, bv, cval, segmask):
    bval = bv & 31
    maxl = (lane & segmask) | (cval & ~segmask & 31)
    minl = lane & segmask
    if mode == 'up': j = lane - bval; ok = j >= maxl
    elif mode == 'down': j = lane + bval; ok = j <= maxl
    elif mode == 'bfly': j = lane ^ bval; ok = j <= maxl
    else: j = minl | (bval & ~segmask & 31); ok = j <= maxl
    return vals[j] if ok else vals[lane]
def expect(op, w, rs):
    a = [r[0] for r in rs]; b = [r[1] for r in rs]; p1 = rs[0][2]; p2 = [r[3] for r in rs]
    out = []
    for lane in range(32):
        if op in ('shfl_idx', 'shfl_up', 'shfl_down', 'shfl_xor'):
            width = p1
            seg = (32 - width) & 31  # c = ((32 - width) << 8) | clamp
            cval = 0 if op == 'shfl_up' else 31
            mode = {'shfl_idx': 'idx', 'shfl_up': 'up', 'shfl_down': 'down', 'shfl_xor': 'bfly'}[op]
            out.append(shfl(mode, a, lane, p2[lane], cval, seg))
        elif op == 'shfl_xor_f32':
            out.append(shfl('bfly', a, lane, p2[lane], 31, 0))
        elif op in ('shfl_idx_lo16', 'shfl_idx_even'):
            inmask = lane < 16 if op.endswith('lo16') else lane % 2 == 0
            out.append(shfl('idx', a, lane, p2[lane], 31, 0) if inmask else 0xeeeeeeee)
        elif op in ('ballot', 'any', 'all', 'match_all_mask', 'match_all_pred'):
            pred = [x >= p1 for x in a]
            bal = sum(1 << l for l in range(32) if pred[l])
            out.append({'ballot': bal, 'any': int(bal != 0), 'all': int(bal == M32),
                        'match_all_mask': M32 if bal in (0, M32) else 0,
                        'match_all_pred': int(bal in (0, M32))}[op])
        elif op == 'popc_ballot':
            out.append(bin(sum(1 << l for l in range(32) if a[l] < b[l])).count('1'))
        elif op in ('ballot_lo16', 'ballot_even', 'any_lo16', 'any_even', 'reduce_add_lo16', 'reduce_add_even'):
            lanes = range(16) if 'lo16' in op else range(0, 32, 2)
            if lane not in lanes: out.append(0xeeeeeeee); continue
            bal = sum(1 << l for l in lanes if a[l] & 1)
            out.append(bal if op.startswith('ballot') else int(bal != 0) if op.startswith('any') else sum(a[l] for l in lanes) & M32)
        elif op.startswith('reduce_'):
            k = op[7:]
            v = {'add_u': lambda: sum(a), 'min_u': lambda: min(a), 'max_u': lambda: max(a),
                 'add_s': lambda: sum(a), 'min_s': lambda: min(map(s32, a)), 'max_s': lambda: max(map(s32, a))}
            if k in v: out.append(v[k]() & M32)
            else:
                acc = a[0]
                for x in a[1:]: acc = {'and': acc & x, 'or': acc | x, 'xor': acc ^ x}[k]
                out.append(acc)
        elif op in ('match_any_low2', 'match_any_hi4'):
            key = [x & 3 for x in a] if op.endswith('low2') else [x >> 28 for x in a]
            out.append(sum(1 << l for l in range(32) if key[l] == key[lane]))
        elif op == 'activemask': out.append(M32)
        elif op == 'activemask_lo16': out.append(0xffff if lane < 16 else 0xeeeeeeee)
        else: return None
    return out
bad_total = 0
for op, by in rows.items():
    bad = 0; ex = []
    for w in range(len(by) // 32):
        rs = [by[w * 32 + l] for l in range(32)]
        e = expect(op, w, rs)
        if e is None: print("no reference for", op); break
        for l in range(32):
            if e[l] != rs[l][4]:
                bad += 1
                if len(ex) < 3: ex.append(f"{op} {w*32+l} {rs[l]} expected {e[l]:08x}")
    if bad: print(op, bad, *ex, sep='\n  '); bad_total += 1
print("mismatching warp ops:", bad_total, "of", len(rows))
