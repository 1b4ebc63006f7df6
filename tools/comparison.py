#!/usr/bin/env python3
"""Writes docs/COMPARISON.md: compute-sanitizer's findings on real hardware next to
warpcheck's for every corpus kernel.

    python3 tools/comparison.py [--warpcheck PATH] > docs/COMPARISON.md

compute-sanitizer's findings come from tests/gpu-anchors/sanitizer.tsv (an NVIDIA H200, see
its README); warpcheck's from running `warpcheck check FILE --from-header --format json` on
each kernel here (clang PTX, no GPU). Each row says where the two differ and why.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))

# What each sanitizer finding corresponds to in warpcheck's codes.
SANITIZER_CODE = {
    "racecheck": "shared-race",
    "synccheck": "barrier-divergence",
    "initcheck": "uninit-read",
}

# Codes that compute-sanitizer cannot report, with the reason.
OUTSIDE_SANITIZER = {
    "global-race": "racecheck checks shared memory only",
    "deadlock": "the kernel hangs on a GPU (not run there)",
    "bank-conflict": "a performance finding (compared with Nsight Compute in tests/gpu-anchors)",
    "uncoalesced-access": "a performance finding (compared with Nsight Compute in tests/gpu-anchors)",
}


def sanitizer_findings():
    """stem -> set of (code, line)."""
    out = collections.defaultdict(set)
    with open(os.path.join(ROOT, "tests/gpu-anchors/sanitizer.tsv")) as f:
        next(f)
        for row in f:
            stem, tool, kind, _detail, loc, other, _count = row.rstrip("\n").split("\t")[:7]
            out[stem]  # every stem gets a row
            if "SUMMARY" in kind or kind.startswith("Program hit"):
                continue
            if tool == "memcheck":
                code = "misaligned" if "misaligned" in stem else "out-of-bounds"
            elif tool in SANITIZER_CODE and tool != "racecheck-hazard":
                code = SANITIZER_CODE[tool]
            else:
                continue
            for l in (loc, other):
                if ":" in l:
                    out[stem].add((code, int(l.rsplit(":", 1)[1])))
    return out


def warpcheck_findings(warpcheck, stem):
    base, _, variant = stem.partition(".")
    path = os.path.join(ROOT, "tests/kernels", base + ".cu")
    cmd = [warpcheck, "check", path, "--from-header", "--format", "json", "--print-limit", "0"]
    if variant:
        cmd.append("-D" + variant.replace("REMOVE_BARRIER_", "REMOVE_BARRIER="))
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode == 2:
        return None, p.stderr.strip().splitlines()[-1:]
    found = set()
    for f in json.loads(p.stdout)["findings"]:
        labels = [f.get("primary")] + (f.get("related", []) if f["code"].endswith("-race") else [])
        for l in labels:
            if l and l["location"]["file"].endswith(base + ".cu"):
                found.add((f["code"], l["location"]["line"]))
    return found, []


def fmt(items):
    if not items:
        return "—"
    by_code = collections.defaultdict(list)
    for code, line in sorted(items):
        by_code[code].append(str(line))
    return "; ".join(f"{c} @ {','.join(ls)}" for c, ls in sorted(by_code.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpcheck", default=os.path.join(ROOT, "target/release/warpcheck"))
    args = ap.parse_args()
    san = sanitizer_findings()
    rows = []
    totals = collections.Counter()
    for stem in sorted(san):
        wc, err = warpcheck_findings(args.warpcheck, stem)
        s = san[stem]
        if wc is None:
            rows.append(f"| `{stem}` | {fmt(s)} | error: {' '.join(err)} | |")
            totals["error"] += 1
            continue
        missed = {x for x in s if x not in wc}
        extra = {x for x in wc if x not in s}
        notes = []
        if missed:
            notes.append("**warpcheck misses** " + fmt(missed))
            totals["missed"] += len(missed)
        reasons = collections.defaultdict(list)
        for code, line in sorted(extra):
            if code in OUTSIDE_SANITIZER:
                reasons[OUTSIDE_SANITIZER[code]].append(f"{code} @ {line}")
            elif code == "uninit-read":
                reasons["initcheck checks global memory only"].append(f"{code} @ {line}")
            else:
                reasons["only warpcheck"].append(f"{code} @ {line}")
        for why, what in reasons.items():
            notes.append(f"{', '.join(what)}: {why}")
        totals["agree"] += len(s & wc)
        rows.append(f"| `{stem}` | {fmt(s)} | {fmt(wc)} | {'; '.join(notes)} |")
    print("# warpcheck and compute-sanitizer on the corpus\n")
    print("compute-sanitizer 2025.3.1 (`racecheck`, `memcheck`, `synccheck`, `initcheck`) on an")
    print("NVIDIA H200 with CUDA 13.0 (`tests/gpu-anchors/`, nvcc -O3 -lineinfo) next to")
    print("`warpcheck check --from-header` on this machine (clang PTX, all checkers, no GPU), for")
    print("every corpus kernel that ran on the GPU. Findings are `code @ source lines`; a race")
    print("names both lines of its pair. Generated by `tools/comparison.py`.\n")
    print(f"Sanitizer findings also found by warpcheck: {totals['agree']}; missed by warpcheck: "
          f"{totals['missed']}; kernels warpcheck could not check: {totals['error']}.\n")
    print("| kernel | compute-sanitizer | warpcheck | differences |")
    print("|---|---|---|---|")
    for r in rows:
        print(r)
    # The Rodinia lint comparison (written by tools/rodinia_lint_table.py --section).
    rodinia = os.path.join(ROOT, "tests", "rodinia", "lint-comparison.md")
    if os.path.exists(rodinia):
        print()
        print(open(rodinia).read().rstrip("\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
