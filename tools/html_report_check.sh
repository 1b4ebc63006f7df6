#!/usr/bin/env bash
# Renders the HTML report (`warpcheck check --report`) of a program with a bank-conflicting
# line in a real headless browser (Chromium), and checks that the page rendered: the
# browser's DOM has the launches table and the conflicting line's heat, and the screenshot
# is not blank and shows the bank-conflict heat colour. Writes the result and the
# screenshot to tests/html-report/ (or the directory given), and exits 1 if a check fails.
#
#   tools/html_report_check.sh [OUT_DIR]
#
# Needs a built warpcheck (`cargo build --release -p warpcheck`, or $WARPCHECK), Chromium
# (`apt-get install -y chromium` on Debian, or $CHROMIUM) and python3 (standard library
# only: the PNG is decoded with zlib).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
warpcheck=${WARPCHECK:-$root/target/release/warpcheck}
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
out=${1:-$root/tests/html-report}
if [ -z "$browser" ]; then
  echo "html_report_check: no Chromium found (apt-get install -y chromium, or set CHROMIUM)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
# The program is checked from a scratch directory under a relative name, so that the page
# names `transpose_bank.cu` wherever the repository is.
cp "$root/tests/programs/transpose_bank.cu" "$work/"
(cd "$work" && "$warpcheck" check transpose_bank.cu --report report.html > program.out 2> warpcheck.err)
flags=(--headless --disable-gpu --hide-scrollbars --window-size=1280,1500)
if [ "$(id -u)" = 0 ]; then flags+=(--no-sandbox); fi
"$browser" "${flags[@]}" --dump-dom "file://$work/report.html" > "$work/dom.html" 2> "$work/browser.err"
"$browser" "${flags[@]}" --screenshot="$work/screenshot.png" "file://$work/report.html" 2>> "$work/browser.err" > /dev/null
version=$("$browser" --version 2>/dev/null | head -1)
python3 - "$work" "$out" "$version" <<'PY'
import sys, zlib, struct, html.parser, shutil

work, out, version = sys.argv[1], sys.argv[2], sys.argv[3]
problems, facts = [], []

class Dom(html.parser.HTMLParser):
    """Collects table rows (id, class, cells with their classes and text) and tags."""
    def __init__(self):
        super().__init__()
        self.rows, self.tags, self.row, self.cell, self.table = [], {}, None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "table":
            self.table = a.get("id") or a.get("class")
        elif tag == "tr":
            self.row = {"table": self.table, "id": a.get("id", ""), "class": a.get("class", ""), "cells": []}
        elif tag == "td" and self.row is not None:
            self.cell = [a.get("class", ""), ""]
    def handle_endtag(self, tag):
        if tag == "td" and self.row is not None and self.cell is not None:
            self.row["cells"].append(tuple(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data

dom = Dom()
dom.feed(open(f"{work}/dom.html", encoding="utf-8").read())
launches = [r for r in dom.rows if r["table"] == "launch-table" and r["class"] == "launch"]
if len(launches) != 2:
    problems.append(f"the launches table has {len(launches)} launch rows, not 2")
for r in launches:
    text = [c[1] for c in r["cells"]]
    if text[1:4] != ["transpose", "(4,4,1)", "(32,32,1)"] or not text[5].isdigit():
        problems.append(f"launch row {text}")
facts.append("launches table: " + "; ".join(
    " ".join(c[1] for c in r["cells"] if "time" not in c[0]) for r in launches))
hot = [r for r in dom.rows if r["id"].endswith("-line-23")]
bank = [c for r in hot for c in r["cells"] if "bank" in c[0]]
if not hot or hot[0]["class"] != "hot" or not bank or "heat-5" not in bank[0][0] or bank[0][1] != "31.00 (32-way)":
    problems.append(f"line 23 (the column read of the tile) is not the hot bank-conflict line: {hot}")
else:
    facts.append(f"line 23: row class `hot`, bank cell `{bank[0][0]}` with `{bank[0][1]}`")
for tag in ("script", "link", "img", "iframe", "object"):
    if dom.tags.get(tag):
        problems.append(f"the DOM has <{tag}> elements")

def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"PNG kind not handled: depth {depth}, colour {color}, interlace {interlace}")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows

width, height, bpp, rows = decode_png(f"{work}/screenshot.png")
colours, non_white, bank_px, exec_px = set(), 0, 0, 0
near = lambda p, q: all(abs(x - y) <= 6 for x, y in zip(p, q))
for line in rows:
    for x in range(0, len(line), bpp):
        p = tuple(line[x:x + 3])
        colours.add(p)
        if p != (255, 255, 255):
            non_white += 1
        if near(p, (0xd7, 0x30, 0x1f)):
            bank_px += 1
        elif near(p, (0x3f, 0x82, 0xd6)):
            exec_px += 1
share = non_white / (width * height)
if len(colours) < 20 or share < 0.02:
    problems.append(f"the screenshot looks blank: {len(colours)} colours, {share:.1%} non-white")
if bank_px < 1000:
    problems.append(f"the bank-conflict heat colour #d7301f is on {bank_px} pixels (expected a shaded cell, over 1000)")
facts.append(f"screenshot {width}x{height}: {len(colours)} colours, {share:.1%} non-white pixels; "
             f"bank-conflict heat colour #d7301f on {bank_px} pixels, execution heat colour #3f82d6 on {exec_px}")
result = "PASS" if not problems else "FAIL"
text = [f"html_report_check: {result}",
        f"browser: {version} (headless: --dump-dom and --screenshot, window 1280x1500)",
        "page: warpcheck check transpose_bank.cu --report report.html (tests/programs/transpose_bank.cu)"]
text += [f"check: {f}" for f in facts] + [f"problem: {p}" for p in problems]
open(f"{out}/result.txt", "w").write("\n".join(text) + "\n")
shutil.copy(f"{work}/screenshot.png", f"{out}/screenshot.png")
print("\n".join(text))
sys.exit(0 if not problems else 1)
PY
