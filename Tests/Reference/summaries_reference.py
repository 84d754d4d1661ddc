#!/usr/bin/env python3
"""An independent reference for WorkFeed's summaries (docs/summaries.md), for the correctness
test in Tests/WorkFeedIndexTests/SummaryReferenceTests.swift.

Reads the owner's feed (every workout as the feed shows it, with its heart-rate samples) and the
summaries WorkFeed answered, computes every bucket again with Python's zoneinfo, and compares.
Written from the rules in docs/summaries.md, not from the Swift code:

- a workout belongs to the local date its start falls on in the owner's zone (strict start);
- day, week (from the first weekday), month and year buckets start at local midnight;
- sums: count, distance, moving time (the device's, else elapsed), elapsed time, climb, calories;
- lengths (a workout's and a bucket's distance and climb) are {"unit", "value"}: km or mi, m or
  ft, in the owner's units (docs/gateway.md, "Figures"); converted to metres here;
- heart rate: average weighted by elapsed time over workouts with an average, from the averages
  as measured, rounded once to whole beats, halves up; maximum, whole; a workout's own average and
  maximum whole, halves up. "As measured" (where the feed gives a workout's "recorded" figures):
  the device's average and maximum where it recorded them, else those of the samples (readings
  of 0 are none);
- time in zones: each gap between consecutive samples of at most 60 s, in the zone of its
  first sample (a zone starts at its lower bound);
- longest: the greatest distance (ties: smaller id); fastest: per activity (running, walking,
  cycling), at least 1 km, greatest distance / moving time (ties: smaller id).

Usage: summaries_reference.py FEED.json REPORT.json [REPORT.json ...]; exits 1 naming each
difference. A feed whose workouts have no "samples" is checked without time in zones.
"""

import datetime as dt
import json
import math
import sys
from fractions import Fraction
from zoneinfo import ZoneInfo

MEASURED = {"running", "walking", "cycling"}
# Metres in each unit a length is given in (the international mile and foot).
METRES = {"km": 1000, "mi": 1609.344, "m": 1, "ft": 0.3048}


def metres(quantity):
    """A length {"unit", "value"} in metres; None stays None."""
    if quantity is None:
        return None
    return quantity["value"] * METRES[quantity["unit"]]


def exact(number):
    """A JSON number as the decimal it was written as (145.3 is 1453/10, not the float nearest it)."""
    return number if isinstance(number, Fraction) else Fraction(repr(number))


def measured(w):
    """A workout's heart-rate average and maximum as measured: the device's where it recorded
    them, else its samples' (exact fractions; None where there is none)."""
    recorded = w.get("recorded") or {}
    if recorded.get("heartRateAverage") or recorded.get("heartRateMax"):
        average, maximum = recorded.get("heartRateAverage"), recorded.get("heartRateMax")
        return (exact(average) if average else None), (exact(maximum) if maximum else None)
    readings = [exact(bpm) for _, bpm in w.get("samples", []) if bpm > 0]
    if not readings:
        return None, None
    return sum(readings) / len(readings), max(readings)


def half_up(fraction):
    """To the nearest whole number, halves up (away from zero: these are positive)."""
    return math.floor(fraction + Fraction(1, 2))
WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]


def parse_utc(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def bucket_start(period, date, first_weekday):
    if period == "day":
        return date
    if period == "week":
        # Python: Monday is 0; first_weekday is 0 for Sunday.
        weekday = (date.weekday() + 1) % 7
        return date - dt.timedelta(days=(weekday - first_weekday) % 7)
    if period == "month":
        return date.replace(day=1)
    return date.replace(month=1, day=1)


def bucket_end(period, start):
    if period == "day":
        return start + dt.timedelta(days=1)
    if period == "week":
        return start + dt.timedelta(days=7)
    if period == "month":
        return (start.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return start.replace(year=start.year + 1)


def local_midnight(date, zone):
    return dt.datetime(date.year, date.month, date.day, tzinfo=zone).isoformat()


def zone_times(samples, bounds):
    times = [0.0] * (len(bounds) + 1)
    for (t0, bpm), (t1, _) in zip(samples, samples[1:]):
        gap = t1 - t0
        if 0 < gap <= 60:
            zone = next((i for i, b in enumerate(bounds) if bpm < b), len(bounds))
            times[zone] += gap
    return times


class Bucket:
    def __init__(self, zones, activity):
        self.activity = activity
        self.count = 0
        self.distance = self.moving = self.elapsed = self.climb = self.calories = 0.0
        self.hr_time = self.hr_weighted = Fraction(0)
        self.hr_max = None
        self.zones = [0.0] * zones
        self.longest = None
        self.fastest = None

    def add(self, w):
        self.count += 1
        distance = metres(w["distance"])
        self.distance += distance
        elapsed = w.get("elapsedTime") or 0.0
        self.elapsed += elapsed
        self.moving += w.get("movingTime") if w.get("movingTime") is not None else elapsed
        self.climb += metres(w.get("elevationGain")) or 0.0
        self.calories += w.get("calories") or 0.0
        # The average as measured where the feed gives it, else the card's (already whole).
        average = measured(w)[0] if "recorded" in w else w.get("heartRateAverage")
        if average:
            self.hr_time += exact(elapsed)
            self.hr_weighted += exact(average) * exact(elapsed)
        if w.get("heartRateMax"):
            self.hr_max = max(self.hr_max or 0, w["heartRateMax"])
        if w["zones"] is None:
            self.zones = None
        elif self.zones is not None:
            for i, t in enumerate(w["zones"]):
                self.zones[i] += t
        if distance > 0:
            key = (-distance, w["id"])
            if self.longest is None or key < self.longest[0]:
                self.longest = (key, w["id"])
        moving = w.get("movingTime") if w.get("movingTime") is not None else elapsed
        if self.activity in MEASURED and distance >= 1000 and moving > 0:
            key = (-(distance / moving), w["id"])
            if self.fastest is None or key < self.fastest[0]:
                self.fastest = (key, w["id"])


def close(a, b, tolerance):
    return abs(a - b) <= tolerance


def compare_figures(where, mine, theirs, count_hint, problems):
    if mine.count != theirs["count"]:
        problems.append(f"{where}: count {theirs['count']}, reference {mine.count}")
        return
    # Whole millimetres and milliseconds per workout in the index: at most half of one each.
    tolerance = 0.0005 * max(1, count_hint) + 1e-6
    for name in ("distance", "elevationGain"):
        if not isinstance(theirs.get(name), dict) or theirs[name].get("unit") not in METRES or set(theirs[name]) != {"unit", "value"}:
            problems.append(f"{where}: {name} {theirs.get(name)} is not a length with its unit")
            return
    for name, value, given in [("distance", mine.distance, metres(theirs["distance"])), ("movingTime", mine.moving, theirs["movingTime"]),
                               ("elapsedTime", mine.elapsed, theirs["elapsedTime"]),
                               ("elevationGain", mine.climb, metres(theirs["elevationGain"])),
                               ("calories", mine.calories, theirs.get("calories", 0.0))]:
        # Unknown calories are absent, not 0 (issue 36).
        if not close(value, given, tolerance) or (name == "calories" and value == 0) != (name not in theirs):
            problems.append(f"{where}: {name} {theirs.get(name)}, reference {value}")
    average = half_up(mine.hr_weighted / mine.hr_time) if mine.hr_time > 0 else None
    if average != theirs.get("heartRateAverage"):
        problems.append(f"{where}: heartRateAverage {theirs.get('heartRateAverage')}, reference {average}")
    if mine.hr_max != theirs.get("heartRateMax"):
        problems.append(f"{where}: heartRateMax {theirs.get('heartRateMax')}, reference {mine.hr_max}")
    if mine.zones is None:
        pass  # the feed gave no samples: time in zones is not checked
    elif len(theirs["timeInZones"]) != len(mine.zones) or any(
            not close(a, b, tolerance) for a, b in zip(mine.zones, theirs["timeInZones"])):
        problems.append(f"{where}: timeInZones {theirs['timeInZones']}, reference {mine.zones}")
    for name, value in [("longest", mine.longest), ("fastest", mine.fastest)]:
        expected = value[1] if value else None
        got = (theirs.get(name) or {}).get("id")
        if expected != got:
            problems.append(f"{where}: {name} {got}, reference {expected}")


def check(feed, report):
    zone = ZoneInfo(report["timeZone"])
    first_weekday = WEEKDAYS.index(report["firstWeekday"])
    bounds = report["heartRateZones"]
    period = report["period"]
    buckets = {}
    problems = []
    for w in feed:
        # A workout's own heart rate: whole beats, halves up, from what was recorded.
        if "recorded" in w:
            for name, value in zip(("heartRateAverage", "heartRateMax"), measured(w)):
                expected = half_up(value) if value is not None else None
                if expected != w.get(name):
                    problems.append(f"workout {w['id']}: {name} {w.get(name)}, measured {value}, reference {expected}")
        if not w.get("start"):
            continue
        w["zones"] = zone_times(w["samples"], bounds) if "samples" in w else None
        date = parse_utc(w["start"]).astimezone(zone).date()
        start = bucket_start(period, date, first_weekday)
        for activity in (w["activity"], None):
            key = (start, activity)
            if key not in buckets:
                buckets[key] = Bucket(len(bounds) + 1, activity)
            buckets[key].add(w)
    seen = set()
    previous_end = None
    for bucket in report["buckets"]:
        start = dt.datetime.fromisoformat(bucket["start"])
        date = start.date()
        if bucket["start"] != local_midnight(date, zone):
            problems.append(f"{period} {date}: start {bucket['start']}, reference {local_midnight(date, zone)}")
        end = bucket_end(period, date)
        if bucket["end"] != local_midnight(end, zone):
            problems.append(f"{period} {date}: end {bucket['end']}, reference {local_midnight(end, zone)}")
        if previous_end is not None and previous_end != bucket["start"]:
            problems.append(f"{period} {date}: starts at {bucket['start']}, the previous bucket ended at {previous_end}")
        previous_end = bucket["end"]
        if bucket_start(period, date, first_weekday) != date:
            problems.append(f"{period} {date}: not where a {period} starts")
        total = buckets.get((date, None), Bucket(len(bounds) + 1, None))
        compare_figures(f"{period} {date} total", total, bucket["total"], total.count, problems)
        for activity, figures in bucket["activities"].items():
            mine = buckets.get((date, activity), Bucket(len(bounds) + 1, activity))
            compare_figures(f"{period} {date} {activity}", mine, figures, mine.count, problems)
            seen.add((date, activity))
        seen.add((date, None))
    first = dt.datetime.fromisoformat(report["buckets"][0]["start"]).date() if report["buckets"] else None
    last = dt.datetime.fromisoformat(report["buckets"][-1]["start"]).date() if report["buckets"] else None
    for (date, activity), bucket in buckets.items():
        if first and first <= date <= last and (date, activity) not in seen:
            problems.append(f"{period} {date} {activity or 'total'}: missing ({bucket.count} workouts in the reference)")
    return problems, sum(1 for b in report["buckets"] if b["total"]["count"] > 0)


def main():
    with open(sys.argv[1]) as f:
        feed = json.load(f)
    problems = []
    for path in sys.argv[2:]:
        with open(path) as f:
            report = json.load(f)
        found, counted = check(feed, report)
        print(f"{report['period']}: {len(report['buckets'])} buckets, {counted} with workouts, {len(found)} differences "
              f"({report['timeZone']}, weeks from {report['firstWeekday']})")
        problems += found
    for problem in problems[:50]:
        print(problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
