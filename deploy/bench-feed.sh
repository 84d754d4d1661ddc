#!/usr/bin/env bash
# GET /v1/feed under load, on loopback, alone (docs/benchmarks.md, "One shape for a workout"): an
# index of BENCH_WORKOUTS (20000) workouts of one owner, a coordinator and a gateway (no worker),
# wrk on pages of 20 at 101 positions all over the feed with a valid token. The feed part of
# deploy/bench-gateway.sh, small enough to compare two builds on a shared machine:
#   deploy/bench-feed.sh                         # this tree's release build
#   deploy/bench-feed.sh /other/tree/.build/debug # another build's binaries (the same for both sides)
# BENCH_SECONDS (10), BENCH_CONNECTIONS (16), BENCH_WORKOUTS (20000) change the run.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh wrk >/dev/null
seconds="${BENCH_SECONDS:-10}"
connections="${BENCH_CONNECTIONS:-16}"
workouts="${BENCH_WORKOUTS:-20000}"
if [ $# -ge 1 ]; then
  bin="$1"
else
  echo "bench-feed: building (release)..."
  for product in workfeed-coordinator workctl workfeed-gateway workfeed-bench; do swift build -c release --product "$product" >/dev/null; done
  bin="$(swift build -c release --show-bin-path)"
fi

dir="$(mktemp -d /tmp/workfeed-bench-feed.XXXXXX)"
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap stop_all EXIT

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
workers_port=$(port); control_port=$(port); events_port=$(port); http_port=$(port)
control="tcp://127.0.0.1:$control_port"
export WORKFEED_LOG_LEVEL=warning WORKFEED_METRICS_LISTEN="" WORKFEED_LISTEN_EVENTS="tcp://127.0.0.1:$events_port"

"$bin/workfeed-bench" --make-index "$dir/index.sqlite" --workouts "$workouts" --owner bench >/dev/null
"$bin/workfeed-coordinator" --index "$dir/index.sqlite" --cache "$dir/cache" --listen-workers "tcp://127.0.0.1:$workers_port" \
  --listen-control "$control" >"$dir/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do "$bin/workctl" status --coordinator "$control" --timeout 1 >/dev/null 2>&1 && break; sleep 0.2; done
"$bin/workctl" token secret --out "$dir/token.secret" >/dev/null
token="$("$bin/workctl" token create --owner bench --expires 1d --secret-file "$dir/token.secret")"
WORKFEED_TOKENS_SECRET_FILE="$dir/token.secret" "$bin/workfeed-gateway" --listen "127.0.0.1:$http_port" --coordinator "$control" \
  --events "tcp://127.0.0.1:$events_port" --cache "$dir/cache" >"$dir/gateway.log" 2>&1 &
pids+=($!)
base="http://127.0.0.1:$http_port"
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.2; done

BASE="$base" TOKEN="$token" DIR="$dir" python3 - <<'PYTHON'
import json, os, urllib.parse, urllib.request
base, token, directory = os.environ["BASE"], os.environ["TOKEN"], os.environ["DIR"]
def get(path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)
cursors, cursor = [], get("/v1/feed?limit=100")["next"]
while cursor and len(cursors) < 100:
    cursors.append(cursor)
    page = get("/v1/feed?limit=100&cursor=" + urllib.parse.quote(cursor, safe=""))
    cursor = page.get("next")
    if cursor:
        cursor = get("/v1/feed?limit=100&cursor=" + urllib.parse.quote(cursor, safe="")).get("next")
with open(os.path.join(directory, "feed-paths.txt"), "w") as out:
    out.write("/v1/feed?limit=20\n")
    for c in cursors: out.write("/v1/feed?limit=20&cursor=" + urllib.parse.quote(c, safe="") + "\n")
PYTHON

cat >"$dir/paths.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WRK_TOKEN")
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end
LUA
echo "bench-feed: $bin, GET /v1/feed?limit=20 over $workouts workouts, wrk -t2 -c$connections -d${seconds}s, $(nproc) cores, $(date -u +%FT%TZ)"
curl -fsS -H "Authorization: Bearer $token" "$base/v1/feed?limit=20" | wc -c | sed 's/^/  bytes of a page of 20: /'
WRK_PATHS="$dir/feed-paths.txt" WRK_TOKEN="$token" wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$dir/paths.lua" "$base" \
  | grep -E "Requests/sec|Latency |  (50|90|99)%|requests in|Non-2xx|Socket errors"
