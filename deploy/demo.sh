#!/usr/bin/env bash
# The whole path on one machine, on the embedded defaults: builds, starts a coordinator and two
# workers on loopback (index and cache under ./var) drawing maps from the Heidelberg tileset, imports
# the sample workouts, renders every route picture and heatmap in both themes with progress, prints a summary, writes var/demo/index.html, and
# stops what it started. Run from the repository root: `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh
echo "demo: building (release)..."
swift build -c release --product workfeed-coordinator >/dev/null
swift build -c release --product workfeed-worker >/dev/null
swift build -c release --product workctl >/dev/null
bin="$(swift build -c release --show-bin-path)"

# The picture cache too: a worker checks it can write there before it starts, and refuses a
# missing one (it would be a mount that is not there).
mkdir -p var/demo var/cache
# The map: the committed Heidelberg tileset (deploy/basemap/SOURCES.md), for the coordinator's cache
# keys and the workers' drawing alike.
export WORKFEED_BASEMAP_TILESETS="$PWD/deploy/basemap/heidelberg.mbtiles"
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

"$bin/workfeed-coordinator" >var/demo/coordinator.log 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  if "$bin/workctl" status --timeout 1 >/dev/null 2>&1; then break; fi
  if ! kill -0 "${pids[0]}" 2>/dev/null; then
    echo "demo: the coordinator did not start; its log:" >&2
    cat var/demo/coordinator.log >&2
    exit 1
  fi
  sleep 0.2
done
echo "demo: coordinator up (log: var/demo/coordinator.log)"

for n in 1 2; do
  "$bin/workfeed-worker" --name "demo-worker-$n" >"var/demo/worker-$n.log" 2>&1 &
  pids+=($!)
done
echo "demo: 2 workers started (logs: var/demo/worker-*.log)"

echo "demo: importing deploy/samples"
"$bin/workctl" import deploy/samples
echo "demo: rendering route pictures and heart-rate heatmaps, light and dark"
"$bin/workctl" enqueue --all --kind route --theme light,dark --wait
"$bin/workctl" enqueue --all --kind heatmap --theme light,dark --wait
echo
"$bin/workctl" feed --html var/demo/index.html
echo
echo "demo: done. Open var/demo/index.html; pictures are under var/cache/route/."
