#!/usr/bin/env bash
# Renders `schedule-sim run --html` in headless Chromium (Debian's `chromium` package) and checks
# what a person would see, not just that the file exists: the DOM has the heat map's cells, the
# outcome chart and the threads timeline, and the screenshot has heat-map-red pixels. Given a
# finding page (`run --target … --html`, as Examples/FaultyBackends/check.sh keeps with
# FINDING_PAGE), also that: its DOM names the double booking and draws its operations as bars,
# and its screenshot has the green of bookings answered as made.
#
#   Scripts/html-report-check.sh [PNG [FINDING_HTML]]   (default PNG: .build/html-report.png;
#                                                        the finding's screenshot: PNG's name + -finding)
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh
PNG=${1:-.build/html-report.png}
FINDING=${2:-}
FINDING_PNG=${PNG%.png}-finding.png
mkdir -p "$(dirname "$PNG")"
WORK=$(mktemp -d /tmp/html-report-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

command -v chromium >/dev/null || { echo "error: chromium is not installed (apt-get install -y chromium)" >&2; exit 1; }
# shellcheck disable=SC2086 # the flags are words
BIN=$(schedule_sim_binary ${SWIFT_BUILD_FLAGS:-})
"$BIN" run Scenarios/rush-hour.json --threads 4 --html "$WORK/report.html" --quiet

CHROME=(timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$WORK/profile")
"${CHROME[@]}" --dump-dom "file://$WORK/report.html" >"$WORK/dom.html" 2>/dev/null
"${CHROME[@]}" --window-size=1100,1400 --screenshot="$PNG" "file://$WORK/report.html" 2>/dev/null
if [[ -n "$FINDING" ]]; then
    "${CHROME[@]}" --dump-dom "file://$(realpath "$FINDING")" >"$WORK/finding-dom.html" 2>/dev/null
    "${CHROME[@]}" --window-size=1100,900 --screenshot="$FINDING_PNG" "file://$(realpath "$FINDING")" 2>/dev/null
fi

# check.py PAGE DOM PNG: what a person would see on the page (report or finding), from its DOM
# and its screenshot.
cat >"$WORK/check.py" <<'PY'
import struct, sys, zlib
page, dom = sys.argv[1], open(sys.argv[2]).read()
if page == "report":
    cells = dom.count('<td style="background:hsl')
    checks = {"heat map cells with attempts": cells > 0, "outcome chart": 'id="outcomes"' in dom,
              "threads timeline": 'id="timeline"' in dom and "<rect" in dom.split('id="timeline"')[1]}
    colour, least = lambda r, g, b: r > 150 and g < 90 and b < 80, 500  # the heat map's reds
else:
    finding = dom.split('id="finding-1"')[1] if 'id="finding-1"' in dom else ""
    checks = {"a first finding": bool(finding), "named as a double booking": "no double booking" in finding,
              "its operations as bars": finding.count("<rect") >= 2}
    colour, least = lambda r, g, b: r < 90 and g > 130 and b < 110, 200  # the green of "ok: made"
# Decode the PNG (8-bit RGB or RGBA, not interlaced) with the standard library and count the
# pixels of the page's colour.
data = open(sys.argv[3], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, chunk = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if chunk == b"IHDR":
        width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and color in (2, 6) and interlace == 0, "unexpected PNG format"
        channels = 3 if color == 2 else 4
    elif chunk == b"IDAT":
        idat += body
    pos += 12 + length
raw, stride, prev, seen = zlib.decompress(idat), width * channels, None, 0
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - channels] if x >= channels else 0
        b = prev[x] if prev else 0
        c = prev[x - channels] if prev and x >= channels else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    seen += sum(1 for x in range(0, stride, channels) if colour(line[x], line[x + 1], line[x + 2]))
    prev = line
checks["its colour in the screenshot"] = seen > least
print(f"html {page}: {len(dom)} bytes of DOM, {seen} pixels of its colour, screenshot {sys.argv[3]} ({width}x{height})")
failed = [name for name, ok in checks.items() if not ok]
if failed:
    sys.exit(f"error: the rendered {page} lacks: " + ", ".join(failed))
PY
python3 "$WORK/check.py" report "$WORK/dom.html" "$PNG"
[[ -z "$FINDING" ]] || python3 "$WORK/check.py" finding "$WORK/finding-dom.html" "$FINDING_PNG"
