#!/usr/bin/env bash
# A planet-shaped PMTiles archive (deploy/make-planet.py: z0-14, 3.6 million addressed tiles,
# 10.4 GB) against the small committed archives, from the file and from a loopback HTTP server
# (deploy/serve-ranges.py): opening it, tile lookups cold and warm, the map group's pictures
# (workfeed-bench --only tileset, with each PNG's SHA-256), and the coordinator's and a worker's
# start time and peak resident memory with each (docs/benchmarks.md, "A planet-shaped archive").
#
#   deploy/bench-planet.sh                       # release build, archive at /tmp/workfeed-planet.pmtiles
#   PLANET=/big/disk/planet.pmtiles PLANET_GB=10.2 deploy/bench-planet.sh
#   BENCH_BIN=.build/release PLANET_KEEP=1 deploy/bench-planet.sh   # built already; keep the archive
#   BENCH_SMOKE=1 BENCH_BIN=.build/debug deploy/bench-planet.sh     # a 60 MB planet, to check the script
#
# The archive is made only when PLANET does not exist, and removed at the end unless PLANET_KEEP=1
# (or it was there before). It needs PLANET_GB of free disk beside PLANET.
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/bench-common.sh

smoke="${BENCH_SMOKE:-}"
planet="${PLANET:-/tmp/workfeed-planet.pmtiles}"
if [ -n "$smoke" ]; then planet="${PLANET:-/tmp/workfeed-planet-smoke.pmtiles}"; fi
small="$PWD/Tests/Data/basemap/tilesets/liechtenstein-z10-14.pmtiles"
bench_programs bench-planet "${BENCH_BIN:-}" workfeed-bench workfeed-coordinator workfeed-worker workctl
dir="$(mktemp -d /tmp/workfeed-bench-planet.XXXXXX)"
made=""
cleanup() {
  bench_stop_all
  if [ -n "$made" ] && [ -z "${PLANET_KEEP:-}" ]; then rm -f "$planet"; fi
}
trap cleanup EXIT

if [ ! -e "$planet" ]; then
  made=1
  if [ -n "$smoke" ]; then deploy/make-planet.py "$planet" --land-side 6; else deploy/make-planet.py "$planet" --gb "${PLANET_GB:-10.2}"; fi
fi
echo "bench-planet: $(date -u +%FT%TZ), $build, load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"

mkdir -p "$dir/serve"
ln -s "$(realpath "$planet")" "$dir/serve/planet.pmtiles"
ln -s "$small" "$dir/serve/small.pmtiles"
http_port=$(bench_port)
python3 deploy/serve-ranges.py "$dir/serve" "$http_port" &
pids+=($!)
for _ in $(seq 1 50); do curl -fsS -o /dev/null -r 0-0 "http://127.0.0.1:$http_port/small.pmtiles" 2>/dev/null && break; sleep 0.1; done
served="http://127.0.0.1:$http_port"

runs=21
[ -z "$smoke" ] || runs=3
"$bin/workfeed-bench" --only tileset --runs "$runs" \
  --tilesets "$small,$planet,$served/small.pmtiles,$served/planet.pmtiles,$PWD/deploy/basemap/heidelberg.mbtiles"

# start_pair LABEL TILESET: a coordinator and one worker on TILESET; prints how long each took to
# answer (the coordinator: `workctl status`; the worker: listed by it) and their peak resident
# memory (VmHWM) and CPU time so far, then stops both.
status_of() { "$bin/workctl" status --coordinator "$control" --timeout 1 2>/dev/null; }
start_pair() {
  local label="$1" tileset="$2" workers_port control_port started coordinator worker t_coordinator t_worker
  workers_port=$(bench_port); control_port=$(bench_port)
  control="tcp://127.0.0.1:$control_port"
  rm -rf "$dir/index.sqlite"* "$dir/cache"
  export WORKFEED_LOG_LEVEL=warning WORKFEED_METRICS_LISTEN="" WORKFEED_LISTEN_EVENTS="tcp://127.0.0.1:$(bench_port)"
  export WORKFEED_BASEMAP_TILESETS="$tileset"
  started=$(date +%s%N)
  "$bin/workfeed-coordinator" --index "$dir/index.sqlite" --cache "$dir/cache" --listen-workers "tcp://127.0.0.1:$workers_port" \
    --listen-control "$control" >"$dir/coordinator.log" 2>&1 &
  coordinator=$!
  until status_of >/dev/null; do sleep 0.02; done
  t_coordinator=$((($(date +%s%N) - started) / 1000000))
  started=$(date +%s%N)
  "$bin/workfeed-worker" --connect "tcp://127.0.0.1:$workers_port" --cache "$dir/cache" --threads 1 --name planet-bench >"$dir/worker.log" 2>&1 &
  worker=$!
  until status_of | grep -q planet-bench; do sleep 0.02; done
  t_worker=$((($(date +%s%N) - started) / 1000000))
  printf '%-28s coordinator answers after %5d ms, %6.1f MiB peak, CPU %s ticks; worker READY after %5d ms, %6.1f MiB peak, CPU %s ticks\n' \
    "$label" "$t_coordinator" "$(awk '/VmHWM/ {print $2 / 1024}' "/proc/$coordinator/status")" \
    "$(awk '{print $14 + $15}' "/proc/$coordinator/stat")" "$t_worker" "$(awk '/VmHWM/ {print $2 / 1024}' "/proc/$worker/status")" \
    "$(awk '{print $14 + $15}' "/proc/$worker/stat")"
  kill -TERM "$worker" "$coordinator"
  wait "$worker" "$coordinator" 2>/dev/null || true
}

echo "## start (a coordinator on an empty index, then one worker; CPU in clock ticks of $(getconf CLK_TCK) a second)"
rounds=3
[ -z "$smoke" ] || rounds=1
for round in $(seq 1 "$rounds"); do
  start_pair "r$round small file" "$small"
  start_pair "r$round planet file" "$planet"
  start_pair "r$round small by URL" "$served/small.pmtiles"
  start_pair "r$round planet by URL" "$served/planet.pmtiles"
done
echo "bench-planet: $(du -h --apparent-size "$planet" | cut -f1) archive $planet; load $(cut -d' ' -f1-3 /proc/loadavg)"
