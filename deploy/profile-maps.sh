#!/usr/bin/env bash
# `make profile-maps`: where a map picture's CPU time goes at @1x, @2x and @3x (issue 39, part 1),
# before anything is changed to make phone-size pictures cheaper. Two views of the same pictures
# (the "map" group of workfeed-bench, release build: the Heidelberg run and a Vaduz loop, route
# pictures 512 x 512 points, tiles at hand, one thread):
#   1. the renderer's own clocks (RenderStatistics), as the bench prints them;
#   2. perf's samples of the same run, each function's own time put in a group: areas, lines,
#      names, tiles, the route, PNG filtering, PNG compression (PixelDeflate, or libdeflate in a
#      build before issue 39), and the rest.
# Settings: PROFILE_RUNS (61 pictures an area and scale), PROFILE_SKIP_BUILD=1, PROFILE_SCALES (1 2 3).
# perf samples the CPU clock (a software event: it works in a VM); the shares are of this
# process's samples. docs/benchmarks.md keeps the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh linux-perf
if [ "${PROFILE_SKIP_BUILD:-0}" != "1" ]; then
  swift build -c release --product workfeed-bench >/dev/null || exit 2
fi
bench="$(swift build -c release --show-bin-path)/workfeed-bench"
runs="${PROFILE_RUNS:-61}"
work=$(mktemp -d "${TMPDIR:-/tmp}/workfeed-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT

for scale in ${PROFILE_SCALES:-1 2 3}; do
  echo "profile-maps: @${scale}x, the renderer's clocks:"
  perf record -q -F 1999 -o "$work/perf-$scale.data" -- "$bench" --only map --kinds route --scales "$scale" --runs "$runs" \
    | grep -E '^(heidelberg|liechtenstein)'
  perf report -i "$work/perf-$scale.data" --stdio --no-children --sort dso,symbol 2>/dev/null | python3 -c '
import re, sys
# The first group whose pattern the function (or its library) matches; the patterns name the
# types in Sources/WorkFeedRender that do each part.
groups = [
    ("PNG compression (PixelDeflate; libdeflate before issue 39)", r"PixelDeflate|Huffman|BitWriter|DynamicHeader|DeflateTables|libdeflate|libz\.so"),
    ("PNG filtering and chunks", r"PNG|CRC|Adler|crc32"),
    ("areas (AreaMask)", r"AreaMask"),
    ("lines (stroke, DistanceField)", r"Canvas.*stroke|DistanceField|Canvas.*dilate"),
    ("names (labels, glyphs, HarfBuzz, FreeType)", r"Label|Glyph|glyph|TextShaper|harfbuzz|freetype"),
    ("tiles (read, decode, classify, place)", r"Tile|MVT|Protobuf|sqlite|MapScene|classif|Basemap|drawBasemap"),
    ("route and marks", r"Route|Simplif|Heatmap|Mark"),
    ("memory, copies, Swift runtime", r"memmove|memset|memcpy|malloc|free|swift_|libswiftCore"),
]
shares = {name: 0.0 for name, _ in groups}
other = 0.0
for line in sys.stdin:
    m = re.match(r"\s+([0-9.]+)%\s+(\S+)\s+\[.\]\s+(.*)", line)
    if not m:
        m = re.match(r"\s+([0-9.]+)%\s+(\S+)\s+\[k\]\s+(.*)", line)
        if m: other += float(m.group(1))
        continue
    share, dso, symbol = float(m.group(1)), m.group(2), m.group(3)
    for name, pattern in groups:
        if re.search(pattern, dso + " " + symbol):
            shares[name] += share
            break
    else:
        other += share
print("  where the CPU time goes (perf, share of the samples):")
for name, _ in groups:
    print(f"    {name:60s} {shares[name]:5.1f} %")
rest = "the rest (start-up, the kernel, other)"
print(f"    {rest:60s} {other:5.1f} %")
'
done
