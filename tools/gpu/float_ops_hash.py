"""Per-op FNV-1a (64-bit) of tools/gpu/float_ops.cu's result words, as float_ops.sh records
and crates/cli/tests/it/float_ops.rs recomputes: reads the program's output on stdin."""
import sys

hashes = {}
for line in sys.stdin:
    op, _i, _a, _b, _c, result = line.split()
    h = hashes.get(op, 0xCBF29CE484222325)
    for byte in (result + "\n").encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    hashes[op] = h
for op in sorted(hashes, key=int):
    print(f"{op}\t{hashes[op]:016x}")
