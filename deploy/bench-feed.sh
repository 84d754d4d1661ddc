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
source deploy/bench-common.sh
bench_programs bench-feed "${1:-}" workfeed-coordinator workctl workfeed-gateway workfeed-bench
bench_start bench-feed "$workouts" 0

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

bench_paths_lua "$dir/paths.lua"
echo "bench-feed: $bin, GET /v1/feed?limit=20 over $workouts workouts, wrk -t2 -c$connections -d${seconds}s, $(nproc) cores, $(date -u +%FT%TZ)"
curl -fsS -H "Authorization: Bearer $token" "$base/v1/feed?limit=20" | wc -c | sed 's/^/  bytes of a page of 20: /'
WRK_PATHS="$dir/feed-paths.txt" WRK_TOKEN="$token" wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$dir/paths.lua" "$base" \
  | grep -E "Requests/sec|Latency |  (50|90|99)%|requests in|Non-2xx|Socket errors"
