#!/usr/bin/env python3
"""Reference timing: cairo drawing the same route picture WorkFeed's renderer draws.

Reads the synthetic route written by `workfeed-bench --dump-route N` (CSV: segment,latitude,
longitude), projects it with Web Mercator and fits it into the picture exactly as WorkFeedRender
does (untimed), then times, per picture: a fresh RGB24 surface filled with the background, the
white outline stroke and the blue line stroke (round caps and joins, anti-aliased), start and end
marks, and writing the PNG to memory with cairo's own libpng writer. Prints medians.

Needs python3-cairo (Debian: apt-get install -y python3-cairo). See docs/benchmarks.md.
Usage: python3 docs/bench/cairo_reference.py ROUTE.csv [--scale 1|2] [--runs N]
"""
import argparse
import csv
import io
import math
import statistics
import time

import cairo

# RouteStyle.light from WorkFeedStyle/Style.swift, in points.
BACKGROUND = (0xF2, 0xF0, 0xEB)
LINE = (0x1F, 0x6F, 0xEB)
OUTLINE = (0xFF, 0xFF, 0xFF)
START = (0x2D, 0xA4, 0x4E)
END = (0xCF, 0x22, 0x2E)
LINE_WIDTH, OUTLINE_WIDTH, MARK_RADIUS, PADDING = 4.0, 1.5, 5.0, 24.0
SIZE = 512


def rgb(colour):
    return tuple(channel / 255 for channel in colour)


def read_segments(path):
    segments = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            segments.setdefault(int(row["segment"]), []).append((float(row["latitude"]), float(row["longitude"])))
    return [segments[key] for key in sorted(segments)]


def project(segments, pixels, scale):
    """Web Mercator, antimeridian unwrapping and fit-with-padding, as PictureFit does."""
    previous = None
    projected = []
    for segment in segments:
        out = []
        for lat, lon in segment:
            if previous is not None and abs(lon - previous) > 180:
                lon -= 360 * round((lon - previous) / 360)
            previous = lon
            phi = math.radians(max(-85.05112878, min(85.05112878, lat)))
            out.append((lon / 360 + 0.5, 0.5 - math.log(math.tan(math.pi / 4 + phi / 2)) / (2 * math.pi)))
        projected.append(out)
    xs = [x for seg in projected for x, _ in seg]
    ys = [y for seg in projected for _, y in seg]
    pad = min(PADDING * scale, pixels / 4)
    zoom = min((pixels - 2 * pad) / (max(xs) - min(xs)), (pixels - 2 * pad) / (max(ys) - min(ys)))
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return [[(pixels / 2 + (x - cx) * zoom, pixels / 2 + (y - cy) * zoom) for x, y in seg] for seg in projected]


def build_path(segments, pixels):
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, pixels, pixels)
    context = cairo.Context(surface)
    for segment in segments:
        context.move_to(*segment[0])
        for point in segment[1:]:
            context.line_to(*point)
    return context.copy_path()


def draw(path, first, last, pixels, scale):
    started = time.perf_counter()
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, pixels, pixels)
    context = cairo.Context(surface)
    context.set_source_rgb(*rgb(BACKGROUND))
    context.paint()
    context.set_line_cap(cairo.LINE_CAP_ROUND)
    context.set_line_join(cairo.LINE_JOIN_ROUND)
    context.append_path(path)
    context.set_source_rgb(*rgb(OUTLINE))
    context.set_line_width((LINE_WIDTH + 2 * OUTLINE_WIDTH) * scale)
    context.stroke_preserve()
    context.set_source_rgb(*rgb(LINE))
    context.set_line_width(LINE_WIDTH * scale)
    context.stroke()
    for centre, colour in ((first, START), (last, END)):
        context.arc(centre[0], centre[1], (MARK_RADIUS + OUTLINE_WIDTH) * scale, 0, 2 * math.pi)
        context.set_source_rgb(*rgb(OUTLINE))
        context.fill()
        context.arc(centre[0], centre[1], MARK_RADIUS * scale, 0, 2 * math.pi)
        context.set_source_rgb(*rgb(colour))
        context.fill()
    surface.flush()
    drawn = time.perf_counter()
    output = io.BytesIO()
    surface.write_to_png(output)
    finished = time.perf_counter()
    return drawn - started, finished - drawn, len(output.getvalue()), output.getvalue()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csv")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--write", help="also write the last picture here, to compare by eye")
    arguments = parser.parse_args()
    pixels = SIZE * arguments.scale
    segments = project(read_segments(arguments.csv), pixels, arguments.scale)
    path = build_path(segments, pixels)
    first, last = segments[0][0], segments[-1][-1]
    for _ in range(3):
        draw(path, first, last, pixels, arguments.scale)
    runs = [draw(path, first, last, pixels, arguments.scale) for _ in range(arguments.runs)]
    points = sum(len(segment) for segment in segments)
    drawing = statistics.median(run[0] for run in runs) * 1000
    encoding = statistics.median(run[1] for run in runs) * 1000
    total = statistics.median((run[0] + run[1]) for run in runs) * 1000
    print(f"cairo {cairo.cairo_version_string()}, {points} points, {pixels}x{pixels} px, median of {arguments.runs}:")
    print(f"  draw {drawing:.2f} ms  png {encoding:.2f} ms  total {total:.2f} ms  {runs[-1][2]} bytes")
    if arguments.write:
        with open(arguments.write, "wb") as handle:
            handle.write(runs[-1][3])


if __name__ == "__main__":
    main()
