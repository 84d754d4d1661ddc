#!/usr/bin/env bash
# Makes the time-zone boundary file the imports look positions up in
# (Sources/WorkFeedTimeZones/Data/timezones.wftz; format and method in docs/timezones.md).
#
# The boundaries are timezone-boundary-builder's (© OpenStreetMap contributors, ODbL 1.0), as
# PyPI's timezonefinder-data packages them; the versions are pinned below. This runs offline
# once the venv (var/tz-python) exists; nothing is fetched when WorkFeed runs. About 5 minutes
# and 2 GiB of memory.
#
#   deploy/make-timezones.sh [output]
set -euo pipefail
cd "$(dirname "$0")/.."

output="${1:-Sources/WorkFeedTimeZones/Data/timezones.wftz}"
requirements="deploy/timezones/requirements.txt"
venv="var/tz-python"
stamp="$venv/.installed"

python3 -c 'import venv, ensurepip' 2>/dev/null || deploy/install-deps.sh python3 python3-venv
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
  echo "make-timezones: Python environment in $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi

"$venv/bin/python" deploy/timezones/make_timezones.py "$output.tmp"
mv "$output.tmp" "$output"
sha256sum "$output"
