#!/usr/bin/env bash
# Makes a vector tileset (MBTiles, OpenMapTiles schema, zooms 10-14) for maps under WorkFeed's
# pictures from an OpenStreetMap extract, with Debian's tilemaker, and writes its metadata (name,
# bounds, attribution). Usage:
#
#   deploy/make-basemap.sh EXTRACT.osm.pbf OUT.mbtiles [NAME]
#
# Extracts for a city, region or country come from OpenStreetMap mirrors (a .osm.pbf file). Then
# name OUT.mbtiles in basemap.tilesets of the coordinator's and every worker's configuration.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ $# -lt 2 ]; then
  echo "usage: $0 EXTRACT.osm.pbf OUT.mbtiles [NAME]" >&2
  exit 64
fi
extract="$1"
out="$2"
name="${3:-$(basename "$extract" | sed -e 's/\.osm\.pbf$//' -e 's/\.pbf$//')}"
[ -r "$extract" ] || { echo "make-basemap: cannot read $extract" >&2; exit 66; }

if ! command -v tilemaker >/dev/null 2>&1; then
  echo "make-basemap: installing tilemaker (Debian package)" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends tilemaker >/dev/null
fi
process=/usr/share/doc/tilemaker/examples/process-openmaptiles.lua
[ -r "$process" ] || { echo "make-basemap: $process is missing (reinstall tilemaker)" >&2; exit 69; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -f "$out"
# tilemaker's bundled OpenMapTiles configuration without the four layers that need downloaded
# shapefiles (ocean, urban areas, ice shelves, glaciers), zooms 10 to 14.
tilemaker --input "$extract" --output "$work/tiles.mbtiles" \
  --config "$here/basemap/config-openmaptiles-noshp-z10-14.json" --process "$process" >"$work/tilemaker.log" 2>&1 \
  || { cat "$work/tilemaker.log" >&2; echo "make-basemap: tilemaker failed" >&2; exit 1; }

# The metadata WorkFeed reads: name, attribution (drawn on every picture), and bounds computed from
# the tiles themselves (some extracts' headers carry wrong bounds).
python3 - "$work/tiles.mbtiles" "$name" <<'PY'
import math, sqlite3, sys
path, name = sys.argv[1], sys.argv[2]
db = sqlite3.connect(path)
z, x0, x1, r0, r1 = db.execute(
    "SELECT zoom_level, min(tile_column), max(tile_column), min(tile_row), max(tile_row) FROM tiles "
    "WHERE zoom_level = (SELECT max(zoom_level) FROM tiles)").fetchone()
n = 2 ** z
def lat(y): return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))
west, east = x0 / n * 360 - 180, (x1 + 1) / n * 360 - 180
north, south = lat(n - 1 - r1), lat(n - r0)
for key, value in [("name", name), ("attribution", "© OpenStreetMap contributors"),
                   ("bounds", f"{west:.5f},{south:.5f},{east:.5f},{north:.5f}")]:
    db.execute("DELETE FROM metadata WHERE name = ?", (key,))
    db.execute("INSERT INTO metadata (name, value) VALUES (?, ?)", (key, value))
db.commit()
count = db.execute("SELECT count(*) FROM tiles").fetchone()[0]
print(f"make-basemap: {count} tiles, zooms up to {z}, bounds {west:.4f},{south:.4f},{east:.4f},{north:.4f}")
PY
mv "$work/tiles.mbtiles" "$out"
echo "make-basemap: wrote $out"
