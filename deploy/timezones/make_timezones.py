#!/usr/bin/env python3
"""Builds WorkFeed's time-zone lookup file (format: docs/timezones.md) from timezonefinder's data.

The boundaries are timezone-boundary-builder's (ODbL, OpenStreetMap contributors), as packaged on
PyPI by `timezonefinder-data`. Run through deploy/make-timezones.sh, which pins the versions.

1. Every land zone's polygons (holes punched) are drawn into a raster of 1/128 degree pixels, in
   bands of 4 degrees of latitude. The nautical zones (Etc/*) are not drawn: they are "sea" (0),
   and the reader works the nautical zone out from the longitude.
2. Each 4 x 4 degree cell becomes a quadtree of depth 9 whose leaves hold one zone. Sea pixels in
   a node of 1 degree or less that holds one land zone count as that zone: land zones reach up to
   a degree into the sea, so that a coast costs no nodes.
3. The file: header, zone names, the 90 x 45 top cells (the cell's first node, its root entry),
   the nodes (4 entries of u16 each: a leaf's zone, or a child node counted from the cell's first).
"""

import argparse
import os
import pickle
import struct
import sys
import time

import numpy as np
from PIL import Image, ImageDraw
from timezonefinder import TimezoneFinder

PIXELS_PER_DEGREE = 128
CELL_DEGREES = 4
CELL_PIXELS = CELL_DEGREES * PIXELS_PER_DEGREE  # 512 = 2^9
DEPTH = 9
COLUMNS = 360 // CELL_DEGREES  # 90
ROWS = 180 // CELL_DEGREES  # 45
WIDTH = 360 * PIXELS_PER_DEGREE
SEA = 0
MIXED = 0xFFFF
COAST_LEVEL = 7  # nodes of 2^7 = 128 pixels (1 degree) or less take one land zone over the sea
LEAF = 0x8000
MAX_CELL_NODES = 0x8000


def load_polygons(finder):
    """(zone index, exterior, holes, bbox area) for every land polygon; zone names by index."""
    names = [""]  # index 0: sea
    polygons = []
    for name in sorted(finder.timezone_names):
        if name.startswith("Etc/"):
            continue
        names.append(name)
        index = len(names) - 1
        for polygon in finder.get_geometry(tz_name=name):
            rings = [np.array(ring, dtype=np.float64) for ring in polygon]  # each [[lngs], [lats]]
            exterior = rings[0]
            box = (exterior[0].min(), exterior[1].min(), exterior[0].max(), exterior[1].max())
            polygons.append((index, rings[0], rings[1:], box))
    # Larger first: an enclave (drawn later) is never erased by the hole punched for it.
    polygons.sort(key=lambda p: -(p[3][2] - p[3][0]) * (p[3][3] - p[3][1]))
    return names, polygons


def ring_xy(ring, top_latitude):
    x = (ring[0] + 180.0) * PIXELS_PER_DEGREE - 0.5
    y = (top_latitude - ring[1]) * PIXELS_PER_DEGREE - 0.5
    return list(zip(x.tolist(), y.tolist()))


def draw_band(band, polygons):
    """The zone index of every pixel of one band of 4 degrees (uint16, rows from the north)."""
    top = 90 - band * CELL_DEGREES
    bottom = top - CELL_DEGREES
    image = Image.new("I", (WIDTH, CELL_PIXELS), SEA)
    draw = ImageDraw.Draw(image)
    for index, exterior, holes, box in polygons:
        if box[3] < bottom - 0.01 or box[1] > top + 0.01:
            continue
        draw.polygon(ring_xy(exterior, top), fill=index)
        for hole in holes:
            draw.polygon(ring_xy(hole, top), fill=SEA)
    return np.array(image, dtype=np.int32).astype(np.uint16)


def reduce_levels(pixels):
    """Level 0 is the pixels; level k holds each 2^k square's zone, SEA, or MIXED."""
    levels = [pixels]
    for level in range(1, DEPTH + 1):
        a = levels[-1]
        h, w = a.shape
        c = a.reshape(h // 2, 2, w // 2, 2).transpose(0, 2, 1, 3).reshape(h // 2, w // 2, 4)
        mixed = (c == MIXED).any(axis=2)
        sea = c == SEA
        all_sea = sea.all(axis=2)
        has_sea = sea.any(axis=2)
        land = np.where(sea, MIXED, c)
        lo = land.min(axis=2)
        hi = np.where(sea, 0, c).max(axis=2)
        uniform = (lo == hi) & ~all_sea & ~mixed
        if level > COAST_LEVEL:
            uniform &= ~has_sea
        levels.append(np.where(all_sea, SEA, np.where(uniform, lo, MIXED)).astype(np.uint16))
    return levels


def encode_cell(levels, column, nodes):
    """The root entry of one top cell: a leaf, or its root node counted from the cell's first node
    (the cell's nodes are appended, each after its parent)."""
    base = len(nodes)

    def entry(level, y, x):
        value = int(levels[level][y, x])
        if value != MIXED:
            return LEAF | value
        index = len(nodes)
        if index - base >= MAX_CELL_NODES:
            sys.exit(f"make_timezones: cell {column} needs more than {MAX_CELL_NODES} nodes")
        nodes.append(None)
        children = [entry(level - 1, 2 * y + dy, 2 * x + dx) for dy in (0, 1) for dx in (0, 1)]
        nodes[index] = children
        return index - base

    return base, entry(DEPTH, 0, column)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    args = parser.parse_args()

    started = time.time()
    finder = TimezoneFinder()
    cache = os.environ.get("MAKE_TIMEZONES_CACHE")  # a pickle of the polygons, to try settings faster
    if cache and os.path.exists(cache):
        with open(cache, "rb") as f:
            names, polygons = pickle.load(f)
    else:
        names, polygons = load_polygons(finder)
        if cache:
            with open(cache, "wb") as f:
                pickle.dump((names, polygons), f)
    print(f"make_timezones: {len(names) - 1} land zones, {len(polygons)} polygons, data {finder.data_version}"
          f" ({time.time() - started:.0f} s)", file=sys.stderr)

    if len(names) >= LEAF:
        sys.exit(f"make_timezones: {len(names)} zones; a leaf holds at most {LEAF - 1}")
    top = []
    nodes = []
    for band in range(ROWS):
        levels = reduce_levels(draw_band(band, polygons))
        for column in range(COLUMNS):
            top.append(encode_cell(levels, column, nodes))
        if band % 5 == 4:
            print(f"make_timezones: band {band + 1}/{ROWS}, {len(nodes)} nodes ({time.time() - started:.0f} s)",
                  file=sys.stderr)

    source = f"timezone-boundary-builder {finder.data_version} via timezonefinder-data (ODbL)".encode()
    out = bytearray()
    out += b"WFTZ"
    out += struct.pack("<HHHHBB", 1, PIXELS_PER_DEGREE, CELL_DEGREES, DEPTH, COAST_LEVEL, len(source))
    out += source
    out += struct.pack("<I", len(names))
    for name in names:
        encoded = name.encode()
        out += struct.pack("<B", len(encoded)) + encoded
    out += struct.pack("<I", len(nodes))
    for base, root in top:
        out += struct.pack("<IH", base, root)
    flat = [value for children in nodes for value in children]
    out += np.array(flat, dtype="<u2").tobytes()
    with open(args.output, "wb") as f:
        f.write(out)
    print(f"make_timezones: wrote {args.output}: {len(out)} bytes, {len(names) - 1} zones, {len(nodes)} nodes"
          f" ({time.time() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
