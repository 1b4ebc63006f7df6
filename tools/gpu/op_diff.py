"""Line-by-line comparison of two outputs of an op-truth program (tools/gpu/float_ops.cu,
tools/gpu/int_ops.cu): lines `OP INDEX INPUT... RESULT`, matched by OP and INDEX. Prints, per
op that differs, how many of its lines differ and the first few pairs, then a summary.
    python3 tools/gpu/op_diff.py GPU.txt EMULATOR.txt
Exit status 1 when any line differs (or exists in one output only)."""
import sys


def read(path):
    lines = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3:
                lines[(fields[0], fields[1])] = line.rstrip("\n")
    return lines


gpu, emu = read(sys.argv[1]), read(sys.argv[2])
by_op = {}
for key in list(gpu) + [k for k in emu if k not in gpu]:
    g, e = gpu.get(key), emu.get(key)
    if g != e:
        by_op.setdefault(key[0], []).append((g, e))
for op, pairs in by_op.items():
    print(f"{op}: {len(pairs)} lines differ")
    for g, e in pairs[:3]:
        print(f"  gpu: {g}\n  emu: {e}")
ops = len({k[0] for k in gpu} | {k[0] for k in emu})
print(f"{len(by_op)} of {ops} ops differ")
sys.exit(1 if by_op else 0)
