#!/usr/bin/env python3
"""Writes the hand-made zip fixtures of this folder from other fixtures (run from this folder).

A small zip writer of its own, so that every odd case can be built byte by byte: stored and
deflated entries, data descriptors, UTF-8 names, ZIP64 records, a prepended stub and a comment,
a bad CRC, a lying size, overlapping entries, encryption and method flags. The output is
deterministic (fixed times). The expected values in ZipArchiveTests were read from these files with
Python's zipfile, not from the Swift reader.
"""
import struct, zlib, os

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
def fixture(path):
    with open(os.path.join(FIX, path), "rb") as f:
        return f.read()

DOS_TIME, DOS_DATE = 0x6000, 0x5A95  # 2025-04-21 12:00:00

def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()

def write_zip(path, entries, zip64=False, prefix=b"", comment=b""):
    out = bytearray(prefix)
    central = []
    for e in entries:
        data = e["data"]
        method = e.get("method", 8)
        payload = e.get("payload") or (deflate(data) if method == 8 else data)
        crc = e.get("crc", zlib.crc32(data) & 0xFFFFFFFF)
        usize = e.get("usize", len(data))
        flags = e.get("flags", 0)
        name = e["name"].encode("utf-8")
        if any(b >= 0x80 for b in name):
            flags |= 0x800
        descriptor = e.get("descriptor", False)
        if descriptor:
            flags |= 0x8
        offset = len(out) - len(prefix)  # offsets as a writer unaware of the stub records them
        if "share_header_of" in e:
            offset = central[e["share_header_of"]]["offset"]
        else:
            extra = b""
            lcrc, lcsize, lusize = (0, 0, 0) if descriptor else (crc, len(payload), usize)
            if zip64:
                extra = struct.pack("<HHQQ", 1, 16, lusize, lcsize)
                lcsize = lusize = 0xFFFFFFFF
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, flags, method, DOS_TIME, DOS_DATE,
                               lcrc, lcsize, lusize, len(name), len(extra)) + name + extra
            out += payload
            if descriptor:
                out += struct.pack("<IIII" if zip64 else "<IIII", 0x08074B50, crc, len(payload), usize) if not zip64 else \
                       struct.pack("<IIQQ", 0x08074B50, crc, len(payload), usize)
        central.append(dict(name=name, flags=flags, method=method, crc=crc, csize=len(payload), usize=usize, offset=offset))
    cd_start = len(out) - len(prefix)
    for c in central:
        extra = b""
        csize, usize, offset = c["csize"], c["usize"], c["offset"]
        if zip64:
            extra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset)
            csize = usize = offset = 0xFFFFFFFF
        out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 45 if zip64 else 20, c["flags"], c["method"],
                           DOS_TIME, DOS_DATE, c["crc"], csize, usize, len(c["name"]), len(extra), 0, 0, 0,
                           0o100644 << 16, offset) + c["name"] + extra
    cd_size = len(out) - len(prefix) - cd_start
    count = len(central)
    if zip64:
        z64 = len(out) - len(prefix)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count, cd_size, cd_start)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, len(comment)) + comment
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, cd_size, cd_start, len(comment)) + comment
    with open(path, "wb") as f:
        f.write(out)
    return bytes(out)

gpx_ride = fixture("gpx-hr/garmin-connect_ride_2020_short_ns3-hr.gpx")
tcx_ride = fixture("tcx/garmin-connect_ride_2020_short.tcx")
fit_ride = fixture("fit/garmin-edge_ride_2020_short.fit")
gpx_run = fixture("gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx")
fit_walk = fixture("fit/garmin-fenix5_walk_hr.fit")

write_zip("stored_gpx.zip", [dict(name="Strava/run.gpx", data=gpx_run, method=0)])

mixed = write_zip("deflated_mixed.zip", [
    dict(name="rides/", data=b"", method=0),
    dict(name="rides/ride.gpx", data=gpx_ride),
    dict(name="rides/ride.tcx", data=tcx_ride, descriptor=True),
    dict(name="rides/Läufe ride.FIT", data=fit_ride),
    dict(name="rides/.DS_Store", data=b"\0\0\0\1Bud1" + b"\0" * 100),
    dict(name="__MACOSX/rides/._ride.gpx", data=b"\0\5\26\7\0\2\0\0Mac OS X        "),
    dict(name="notes.txt", data=b"three exports of the same ride\n"),
])

corrupt = bytearray(gpx_run)
index = corrupt.index(b'lat="') + 8
corrupt[index] = ord("7") if corrupt[index] != ord("7") else ord("8")
write_zip("bad-crc.zip", [
    dict(name="a.gpx", data=gpx_run, method=0),
    dict(name="b.gpx", data=bytes(corrupt), method=0, crc=zlib.crc32(gpx_run) & 0xFFFFFFFF),
])

with open("truncated.zip", "wb") as f:
    f.write(mixed[: len(mixed) * 6 // 10])

write_zip("bomb.zip", [dict(name="bomb.gpx", data=b" " * (20 << 20))])

liar = b"<gpx>" + b" " * (2 << 20) + b"</gpx>"
write_zip("lying-size.zip", [dict(name="liar.gpx", data=liar, payload=deflate(liar), usize=1000,
                                  crc=zlib.crc32(liar[:1000]) & 0xFFFFFFFF)])

write_zip("overlapping.zip", [
    dict(name="one.gpx", data=gpx_run),
    dict(name="two.gpx", data=gpx_run, share_header_of=0),
    dict(name="walk.fit", data=fit_walk),
])

deeper = write_zip("/tmp/wf-deeper.zip", [dict(name="b.gpx", data=gpx_run)])
inner = write_zip("/tmp/wf-inner.zip", [dict(name="a.gpx", data=gpx_ride), dict(name="deeper.zip", data=deeper, method=0)])
write_zip("nested.zip", [dict(name="ride.fit", data=fit_ride), dict(name="more/inner.zip", data=inner, method=0)])
os.remove("/tmp/wf-deeper.zip"); os.remove("/tmp/wf-inner.zip")

write_zip("zip64_prefixed_comment.zip", [
    dict(name="track.gpx", data=gpx_run, descriptor=True),
    dict(name="walk.fit", data=fit_walk, method=0),
], zip64=True, prefix=b"#!/bin/sh\necho self-extracting stub\nexit 0\n" + b"\0" * 57, comment=b"made by make_zips.py PK\x05\x06 in a comment")

write_zip("unsupported.zip", [
    dict(name="secret.gpx", data=gpx_run, flags=1),
    dict(name="bzip2.gpx", data=gpx_run, method=12, payload=b"BZh9" + b"\0" * 40),
    dict(name="fine.fit", data=fit_walk),
])

export = "apple-health/dogsheep_apple_health_export/"
write_zip("apple_health_export.zip", [
    dict(name="apple_health_export/", data=b"", method=0),
    dict(name="apple_health_export/export.xml", data=fixture(export + "export.xml")),
    dict(name="apple_health_export/export_cda.xml", data=b"<ClinicalDocument/>"),
    dict(name="apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx",
         data=fixture(export + "workout-routes/route_2019-06-11_3.00pm.gpx")),
    dict(name="apple_health_export/workout-routes/route_unreferenced.gpx", data=gpx_run),
    dict(name="__MACOSX/apple_health_export/._export.xml", data=b"\0\5\26\7junk"),
])
