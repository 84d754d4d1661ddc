#!/usr/bin/env python3
"""Writes a PMTiles v3 archive of planet shape from the committed tiles (issue 35, part 2).

    deploy/make-planet.py OUT.pmtiles [--gb 10.2] [--land-side N] [--leaf-size 4096]

Shape: every tile of zooms 0-10 (1,398,101 addressed tiles), and zooms 11-14 under a square of
"land" z10 tiles over Europe (its side chosen so that the archive reaches --gb gigabytes, 10^9
bytes). Land tiles are distinct copies; the sea (every z0-10 tile outside the land) is one tile
stored once and addressed by runs, as real planet builds deduplicate their ocean tiles. Tile
bytes come from the committed OpenMapTiles tilesets (deploy/basemap/heidelberg.mbtiles and
Tests/Data/basemap/tilesets/liechtenstein-z10-14.mbtiles), the same zoom where there is one (z10
tiles stand in below z10); at their real z/x/y the real Heidelberg and Liechtenstein tiles are
stored, byte for byte, so a picture there can be compared with the one from the small archive.

The archive is laid out as the spec (protomaps PMTiles spec/v3) and its writers do: header, root
directory (gzip, inside the first 16 KiB), metadata (gzip JSON), leaf directories (gzip, about
4,096 entries each, clustered), tile data in tile-id order. Two passes: the first computes every
entry from the tiles' known sizes, the second streams the tile data (nothing of it is kept in
memory). Deterministic: the same inputs give the same bytes.
"""

import argparse
import gzip
import json
import math
import os
import sqlite3
import sys
import time
from array import array

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [
    os.path.join(ROOT, "deploy/basemap/heidelberg.mbtiles"),
    os.path.join(ROOT, "Tests/Data/basemap/tilesets/liechtenstein-z10-14.mbtiles"),
]
MAX_ZOOM = 14
LAND_ZOOM = 10
# The land square is centred on Heidelberg's z10 tile, so that both real areas are inside it.
LAND_CENTRE = (536, 350)


def hilbert_index(x, y, side):
    """xy2d, as PMTilesTileID.hilbertIndex and the reference implementations compute it."""
    d = 0
    s = side // 2
    while s > 0:
        rx = 1 if x & s else 0
        ry = 1 if y & s else 0
        d += s * s * ((3 * rx) ^ ry)
        if ry == 0:
            if rx == 1:
                x = side - 1 - x
                y = side - 1 - y
            x, y = y, x
        s //= 2
    return d


def zoom_base(z):
    return ((1 << (2 * z)) - 1) // 3


def tile_id(z, x, y):
    return zoom_base(z) + hilbert_index(x, y, 1 << z)


def varint(value, out):
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def serialize_directory(ids, runs, lengths, offsets, start, end):
    """Spec 4.2: count, tile-id deltas, run lengths, lengths, offsets (0: right after the last)."""
    out = bytearray()
    varint(end - start, out)
    last = 0
    for i in range(start, end):
        varint(ids[i] - last, out)
        last = ids[i]
    for i in range(start, end):
        varint(runs[i], out)
    for i in range(start, end):
        varint(lengths[i], out)
    for i in range(start, end):
        if i > start and offsets[i] == offsets[i - 1] + lengths[i - 1]:
            out.append(0)
        else:
            varint(offsets[i] + 1, out)
    return gzip.compress(bytes(out), compresslevel=6, mtime=0)


def read_pool():
    """The committed tiles by zoom (stored bytes, gzip MVT), and the real ones by tile id."""
    pool = {z: [] for z in range(LAND_ZOOM, MAX_ZOOM + 1)}
    real = {}
    metadata = {}
    for path in SOURCES:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        if not metadata:
            metadata = dict(db.execute("SELECT name, value FROM metadata"))
        rows = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY zoom_level, tile_column, tile_row")
        for z, x, row, data in rows:
            y = (1 << z) - 1 - row  # MBTiles rows count from the south (TMS)
            data = bytes(data)
            pool[z].append(data)
            real[tile_id(z, x, y)] = data
        db.close()
    return pool, real, metadata


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--gb", type=float, default=10.2, help="the archive's size to reach, in 10^9 bytes (default 10.2)")
    parser.add_argument("--land-side", type=int, help="the land square's side in z10 tiles (default: from --gb)")
    parser.add_argument("--leaf-size", type=int, default=4096, help="entries a leaf directory starts with (default 4096; tests use fewer)")
    args = parser.parse_args()
    started = time.monotonic()

    pool, real, source_metadata = read_pool()
    blobs = []  # every distinct tile's bytes: the pool, then the real tiles
    pool_refs = {}
    for z in range(LAND_ZOOM, MAX_ZOOM + 1):
        pool_refs[z] = []
        for data in pool[z]:
            pool_refs[z].append(len(blobs))
            blobs.append(data)
    real_refs = {}
    for tid, data in real.items():
        real_refs[tid] = len(blobs)
        blobs.append(data)
    sea_ref = pool_refs[LAND_ZOOM][0]

    def average(z):
        zz = max(z, LAND_ZOOM)
        return sum(len(blobs[r]) for r in pool_refs[zz]) / len(pool_refs[zz])

    per_land_tile = sum((4 ** (z - LAND_ZOOM)) * average(z) for z in range(LAND_ZOOM, MAX_ZOOM + 1))
    side = args.land_side or math.ceil(math.sqrt(args.gb * 1e9 / per_land_tile))
    x0, y0 = LAND_CENTRE[0] - side // 2, LAND_CENTRE[1] - side // 2
    print(f"make-planet: land {side} x {side} z10 tiles from {x0}/{y0}, about {side * side * per_land_tile / 1e9:.2f} GB", flush=True)

    land10 = sorted(hilbert_index(x, y, 1 << LAND_ZOOM) for x in range(x0, x0 + side) for y in range(y0, y0 + side))

    # Pass 1: the entries (tile id, run length, length, offset in the tile data) and which blob
    # each stored tile is, in tile-id order.
    ids, runs, lengths, offsets = array("Q"), array("Q"), array("Q"), array("Q")
    order = array("i")  # the blob of each stored copy, in the order they are written
    data_length = 0
    sea_offset = None
    addressed = 0

    def store(tid, ref):
        nonlocal data_length
        ids.append(tid)
        runs.append(1)
        lengths.append(len(blobs[ref]))
        offsets.append(data_length)
        order.append(ref)
        data_length += len(blobs[ref])

    def sea_run(tid, count):
        nonlocal sea_offset, data_length
        if count <= 0:
            return
        if sea_offset is None:
            sea_offset = data_length
            order.append(sea_ref)
            data_length += len(blobs[sea_ref])
        ids.append(tid)
        runs.append(count)
        lengths.append(len(blobs[sea_ref]))
        offsets.append(sea_offset)

    def land_ref(z, tid):
        if tid in real_refs:
            return real_refs[tid]
        refs = pool_refs[max(z, LAND_ZOOM)]
        return refs[(tid * 2654435761 >> 7) % len(refs)]

    for z in range(0, MAX_ZOOM + 1):
        base = zoom_base(z)
        if z <= LAND_ZOOM:
            shift = 2 * (LAND_ZOOM - z)
            land = sorted(set(d >> shift for d in land10))
            next_d = 0
            for d in land:
                sea_run(base + next_d, d - next_d)
                store(base + d, land_ref(z, base + d))
                next_d = d + 1
            sea_run(base + next_d, (1 << (2 * z)) - next_d)
            addressed += 1 << (2 * z)
        else:
            k = 2 * (z - LAND_ZOOM)
            for parent in land10:
                # Hilbert order is hierarchical: a z10 tile's descendants at zoom z are the
                # 4^(z-10) ids that follow parent * 4^(z-10).
                for d in range(parent << k, (parent + 1) << k):
                    store(base + d, land_ref(z, base + d))
            addressed += len(land10) << k
        print(f"make-planet: z{z} done, {len(ids):,} entries, {data_length / 1e9:.2f} GB of tiles, {time.monotonic() - started:.0f} s", flush=True)

    # Directories: one root entry per leaf of `leaf_size` entries, grown until the root fits in
    # the first 16 KiB with the header (the reference writers' optimize_directories).
    leaf_size = args.leaf_size
    while True:
        leaves = []
        leaf_offset = 0
        for start in range(0, len(ids), leaf_size):
            leaf = serialize_directory(ids, runs, lengths, offsets, start, min(start + leaf_size, len(ids)))
            leaves.append((ids[start], leaf_offset, leaf))
            leaf_offset += len(leaf)
        root = serialize_directory(
            [l[0] for l in leaves], [0] * len(leaves), [len(l[2]) for l in leaves], [l[1] for l in leaves], 0, len(leaves))
        if len(root) <= 16384 - 127:
            break
        leaf_size *= 2
    print(f"make-planet: {len(leaves):,} leaf directories of {leaf_size} entries, {leaf_offset / 1e6:.1f} MB; root {len(root):,} bytes", flush=True)

    vector_layers = json.loads(source_metadata.get("json", "{}")).get("vector_layers", [])
    metadata = gzip.compress(json.dumps({
        "name": "WorkFeed planet-shaped test archive (committed OpenMapTiles tiles repeated; not a map)",
        "attribution": source_metadata.get("attribution", ""),
        "description": "generated by deploy/make-planet.py; real tiles around Heidelberg and Liechtenstein",
        "vector_layers": vector_layers,
    }, sort_keys=True, ensure_ascii=False).encode(), mtime=0)

    root_offset = 127
    metadata_offset = root_offset + len(root)
    leaves_offset = metadata_offset + len(metadata)
    data_offset = leaves_offset + leaf_offset
    header = bytearray(b"PMTiles\x03")
    for value in (root_offset, len(root), metadata_offset, len(metadata), leaves_offset, leaf_offset, data_offset, data_length,
                  addressed, len(ids), len(order)):
        header += value.to_bytes(8, "little")
    header += bytes([1, 2, 2, 1, 0, MAX_ZOOM])  # clustered, gzip directories, gzip tiles, MVT, z0-14
    for value in (-1800000000, -850511287, 1800000000, 850511287):
        header += value.to_bytes(4, "little", signed=True)
    header += bytes([LAND_ZOOM])
    for value in (86941000, 494088000):
        header += value.to_bytes(4, "little", signed=True)
    assert len(header) == 127

    # Pass 2: write it all, the tile data streamed in tile-id order.
    temporary = args.out + ".partial"
    with open(temporary, "wb", buffering=8 << 20) as out:
        out.write(header)
        out.write(root)
        out.write(metadata)
        for _, _, leaf in leaves:
            out.write(leaf)
        written = 0
        step = 500_000_000
        next_report = step
        for ref in order:
            blob = blobs[ref]
            out.write(blob)
            written += len(blob)
            if written >= next_report:
                print(f"make-planet: {written / 1e9:.1f} of {data_length / 1e9:.1f} GB written, {time.monotonic() - started:.0f} s", flush=True)
                next_report += step
    os.replace(temporary, args.out)
    size = os.path.getsize(args.out)
    print(f"make-planet: {args.out}: {size:,} bytes ({size / 1e9:.2f} GB), {addressed:,} addressed tiles, {len(ids):,} entries, "
          f"{len(order):,} tiles stored, {len(leaves):,} leaf directories, {time.monotonic() - started:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
