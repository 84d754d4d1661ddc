#!/usr/bin/env bash
# The whole path on one machine, on the embedded defaults: builds, starts a coordinator and two
# workers on loopback (index and cache under ./var) drawing maps from the Heidelberg tileset, imports
# the sample workouts, renders every route picture and heatmap in both themes with progress, prints a
# summary, writes var/demo/index.html, then starts the gateway and prints the feed page's address
# (with a token for the samples' owner) and serves it until Ctrl-C; then it stops what it started.
# WORKFEED_DEMO_EXIT=1 stops right after printing the address; WORKFEED_DEMO_PORT picks the port
# (8080). Run from the repository root: `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh
echo "demo: building (release; the first build takes several minutes, log: var/demo-build.log)..."
mkdir -p var
for product in workfeed-coordinator workfeed-worker workctl workfeed-gateway; do
  if ! swift build -c release --product "$product" >var/demo-build.log 2>&1; then
    tail -40 var/demo-build.log
    echo "demo: building $product failed (the whole log: var/demo-build.log)" >&2
    exit 1
  fi
done
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

# Waits until `check` succeeds, or stops the demo with the log of the process that did not start.
wait_until_up() {
  local name="$1" log="$2" pid="$3"
  shift 3
  for _ in $(seq 1 100); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "demo: the $name did not start; its log:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.2
  done
}

"$bin/workfeed-coordinator" >var/demo/coordinator.log 2>&1 &
pids+=($!)
wait_until_up coordinator var/demo/coordinator.log "${pids[0]}" "$bin/workctl" status --timeout 1
echo "demo: coordinator up (log: var/demo/coordinator.log)"

for n in 1 2; do
  "$bin/workfeed-worker" --name "demo-worker-$n" >"var/demo/worker-$n.log" 2>&1 &
  pids+=($!)
done
echo "demo: 2 workers started (logs: var/demo/worker-*.log)"

echo "demo: importing deploy/samples"
"$bin/workctl" import deploy/samples
echo "demo: rendering route pictures and heart-rate heatmaps, light and dark"
# Exit code 2 means done, but some pictures failed: the samples include a recording without a
# route on purpose (README, "What the demo shows"), so that is expected here.
render() { "$bin/workctl" enqueue --all "$@" --wait --wait-timeout 60 || [ $? -eq 2 ]; }
render --kind route --theme light,dark
render --kind heatmap --theme light,dark
echo
"$bin/workctl" feed --html var/demo/index.html
echo
echo "demo: var/demo/index.html written; pictures are under var/cache/route/."

# The app's door: a token secret for the demo, the gateway, and a token for the samples' owner
# (imported without --owner: the default owner).
port="${WORKFEED_DEMO_PORT:-8080}"
[ -f var/demo/token.secret ] || "$bin/workctl" token secret --out var/demo/token.secret >/dev/null
WORKFEED_TOKENS_SECRET_FILE=var/demo/token.secret "$bin/workfeed-gateway" --listen "127.0.0.1:$port" --cache var/cache \
  >var/demo/gateway.log 2>&1 &
pids+=($!)
wait_until_up gateway var/demo/gateway.log "${pids[-1]}" curl -fsS "http://127.0.0.1:$port/readyz"
token="$("$bin/workctl" token create --owner default --expires 1d --secret-file var/demo/token.secret)"
echo "demo: gateway up (log: var/demo/gateway.log). The feed page, in a browser:"
echo
echo "  http://127.0.0.1:$port/#token=$token"
echo
if [ "${WORKFEED_DEMO_EXIT:-0}" = "1" ]; then exit 0; fi
echo "demo: serving until Ctrl-C."
wait "${pids[-1]}" || true
