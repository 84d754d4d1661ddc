#!/usr/bin/env bash
# Map pictures' CPU time in the renderer, this build against another in the same run (issue 39):
# the "map" group of workfeed-bench (route pictures 512 x 512 points, tiles at hand, one thread)
# from each build in turn, rounds alternated (base, this, base, this, ...), then per area, theme
# and scale the median over the rounds of each build's CPU milliseconds a picture, the ratio, and
# the bytes of each build's picture; the PNGs of the last round are kept for comparing.
#
# Settings (environment): COMPARE_BASE=DIR (required: a directory with the other build's
# workfeed-bench, e.g. a release build of main copied aside), COMPARE_BIN=DIR (this build's;
# default: swift build -c release --show-bin-path, built unless COMPARE_SKIP_BUILD=1),
# COMPARE_ROUNDS=3, COMPARE_RUNS=21 (pictures an area, theme and scale each round),
# COMPARE_SCALES=1,2,3, COMPARE_THEMES=light,dark, COMPARE_KINDS=route,
# COMPARE_OUT=var/compare-maps (the last round's pictures: base/ and new/).
# COMPARE_SMOKE=1: one round of 2 pictures at @1x, as `make test` runs it so that the script cannot
# rot; its figures are no benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

base="${COMPARE_BASE:?COMPARE_BASE names a directory holding the workfeed-bench to compare with}"
if [ -n "${COMPARE_BIN:-}" ]; then
  bin="$COMPARE_BIN"
else
  [ "${COMPARE_SKIP_BUILD:-0}" = "1" ] || swift build -c release --product workfeed-bench >/dev/null
  bin="$(swift build -c release --show-bin-path)"
fi
rounds="${COMPARE_ROUNDS:-3}"
runs="${COMPARE_RUNS:-21}"
scales="${COMPARE_SCALES:-1,2,3}"
if [ "${COMPARE_SMOKE:-0}" = "1" ]; then rounds=1; runs=2; scales=1; fi
out="${COMPARE_OUT:-var/compare-maps}"
rm -rf "$out"
mkdir -p "$out/base" "$out/new"
for round in $(seq 1 "$rounds"); do
  for which in base new; do
    if [ "$which" = base ]; then program="$base/workfeed-bench"; else program="$bin/workfeed-bench"; fi
    "$program" --only map --kinds "${COMPARE_KINDS:-route}" --themes "${COMPARE_THEMES:-light,dark}" --scales "$scales" \
      --runs "$runs" --map-out "$out/$which" | grep -E '^(heidelberg|liechtenstein) ' | sed "s/^/$which $round /" >>"$out/rounds.txt"
  done
done
python3 - "$out" <<'PY'
import os, statistics, sys
out = sys.argv[1]
cpu, size = {}, {}
for line in open(f"{out}/rounds.txt"):
    # which round area kind theme scale first then cpu | ... N B, ...
    parts = line.split()
    which, area, kind, theme, scale = parts[0], parts[2], parts[3], parts[4], parts[5]
    key = (area, kind, theme, scale)
    cpu.setdefault((which, key), []).append(float(parts[8]))
    size[(which, key)] = int(parts[parts.index("B,") - 1])
keys = sorted({key for (_, key) in cpu}, key=lambda k: (k[0], k[1], k[2], int(k[3][1:-1])))
print("area           kind     theme  scale  base ms  new ms  new/base | base B     new B      new/base")
for key in keys:
    b, n = statistics.median(cpu[("base", key)]), statistics.median(cpu[("new", key)])
    sb, sn = size[("base", key)], size[("new", key)]
    print(f"{key[0]:15s}{key[1]:9s}{key[2]:7s}{key[3]:7s}{b:8.2f}{n:8.2f}  {n / b:8.3f} | {sb:<10d} {sn:<10d} {sn / sb:.3f}")
for which in ("base", "new"):
    for area in sorted({k[0] for k in keys}):
        for theme in sorted({k[2] for k in keys}):
            one = [statistics.median(cpu[(which, k)]) for k in keys if k[0] == area and k[2] == theme and k[3] == "@1x"]
            three = [statistics.median(cpu[(which, k)]) for k in keys if k[0] == area and k[2] == theme and k[3] == "@3x"]
            if one and three:
                print(f"{which}: {area} {theme}: @3x is {three[0] / one[0]:.2f}x the CPU of @1x")
PY
echo "compare-maps: $rounds rounds alternated, $runs pictures each; pictures of the last round in $out/base and $out/new"
