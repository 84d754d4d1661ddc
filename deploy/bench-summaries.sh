#!/usr/bin/env bash
# GET /v1/summaries under load, on loopback (docs/benchmarks.md, "Summaries"; issue 28: a year of
# weekly buckets of an owner with 20,000 workouts under 20 ms at p99 through the gateway): an
# index of BENCH_WORKOUTS (20000) workouts of one owner (their summaries counted as they are
# imported), a coordinator and a gateway, wrk on GET /v1/summaries?period=week over one year with
# a valid token; then workfeed-bench's `summaries` group (imports with and without summaries, and
# the index's own read).
#   deploy/bench-summaries.sh                         # this tree's release build
#   BENCH_BIN=.build/debug deploy/bench-summaries.sh  # programs built already
# BENCH_SECONDS (10), BENCH_CONNECTIONS (4), BENCH_WORKOUTS (20000) change the run; BENCH_SMOKE=1
# is the small size `make test` runs so that the script cannot rot (its figures are no benchmark).
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh wrk >/dev/null
smoke="${BENCH_SMOKE:-0}"
seconds="${BENCH_SECONDS:-10}"
connections="${BENCH_CONNECTIONS:-4}"
workouts="${BENCH_WORKOUTS:-20000}"
if [ "$smoke" = 1 ]; then seconds=2; workouts=500; fi
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  echo "bench-summaries: building (release)..."
  for product in workfeed-coordinator workctl workfeed-gateway workfeed-bench; do swift build -c release --product "$product" >/dev/null; done
  bin="$(swift build -c release --show-bin-path)"
fi
for program in workfeed-coordinator workctl workfeed-gateway workfeed-bench; do
  [ -x "$bin/$program" ] || { echo "bench-summaries: $bin/$program is not built (swift build, or unset BENCH_BIN)" >&2; exit 1; }
done

dir="$(mktemp -d /tmp/workfeed-bench-summaries.XXXXXX)"
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

"$bin/workfeed-bench" --make-index "$dir/index.sqlite" --workouts "$workouts" --owner bench
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

# The bench index's workouts run from September 2020, one an hour: 2021 is a full year of them;
# the smoke run's 500 all fall in 2020. A year with no workout counted fails the run.
year=2021
if [ "$smoke" = 1 ]; then year=2020; fi
path="/v1/summaries?period=week&from=$year-01-01&to=$year-12-31"
reply="$(curl -fsS -H "Authorization: Bearer $token" "$base$path")"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
counted = sum(b["total"]["count"] for b in r["buckets"])
print("  %d weekly buckets, %d workouts, %d bytes" % (len(r["buckets"]), counted, len(sys.argv[1])))
sys.exit("bench-summaries: no workout counted in %s" % sys.argv[2] if counted == 0 else 0)' "$reply" "$year"
echo "bench-summaries: $bin, GET $path over $workouts workouts, wrk -t2 -c$connections -d${seconds}s, $(nproc) cores, $(date -u +%FT%TZ)"
WRK_TOKEN="$token" wrk -t2 -c"$connections" -d"${seconds}s" --latency -H "Authorization: Bearer $token" "$base$path" \
  | grep -E "Requests/sec|Latency |  (50|90|99)%|requests in|Non-2xx|Socket errors"
if [ "$smoke" != 1 ]; then "$bin/workfeed-bench" --only summaries --runs 3; fi
