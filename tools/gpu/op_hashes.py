"""Per-op FNV-1a (64-bit) of an op-truth program's output, as tools/gpu/float_ops.sh and
tools/gpu/int_ops.sh record it and crates/cli/tests/it/float_ops.rs and int_ops.rs recompute
it. Reads the program's output on stdin: lines `OP INDEX INPUT... RESULT`. Each op's hash
covers its RESULT fields (the last field of each of its lines, as printed, with a newline
after each) in output order; ops are listed in the order they first appear, `OP<TAB>HASH`."""
import sys

hashes = {}
for line in sys.stdin:
    fields = line.split()
    op, result = fields[0], fields[-1]
    h = hashes.get(op, 0xCBF29CE484222325)
    for byte in (result + "\n").encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    hashes[op] = h
for op, h in hashes.items():
    print(f"{op}\t{h:016x}")
