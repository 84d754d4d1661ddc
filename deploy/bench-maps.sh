#!/usr/bin/env bash
# End-to-end map pictures a second (docs/benchmarks.md, "Maps end to end"): a coordinator and two
# workers as release builds on loopback, the Heidelberg tileset, N generated workouts inside the
# tileset (seeded random walks with heart rate), imported, then route and heatmap pictures in both
# themes enqueued and awaited. Prints pictures, wall time, pictures a second, and each worker's
# peak resident memory (VmHWM) with its tile cache's budget and how full it ended (from the
# worker's own log line at shutdown).
#
# Settings (environment): BENCH_WORKOUTS=500, BENCH_POINTS=600 (points a workout), BENCH_SEED=7,
# BENCH_CACHE_MB=64 (basemap.cache_mb of each worker), BENCH_SKIP_BUILD=1, BENCH_KEEP=1 (keep
# var/bench-maps), BENCH_BIN=DIR (run the programs in DIR, built already, e.g. .build/debug).
# BENCH_SMOKE=1: the small size `make test` runs so that the script cannot rot (8 workouts of 200
# points unless set; every picture must be drawn, or it fails). Its figures are no benchmark.
# STORE=s3: the pictures go to an S3-compatible bucket instead of a directory (moto on a free
# loopback port, from var/test-python: deploy/install-test-deps.sh), every part with
# cache.directory = s3://bench-maps/pictures.
# INDEX=postgres: the index in PostgreSQL instead of the SQLite file: a server of the script's own
# (Debian's /usr/lib/postgresql/*/bin: initdb, pg_ctl; deploy/install-test-deps.sh installs them)
# made in a temporary directory, on a Unix socket there only, with PostgreSQL's default durable
# settings (every commit flushed, as the coordinator's index.durability = full asks), stopped and
# removed at exit; the coordinator is given WORKFEED_INDEX_URL=postgres://workfeed@:PORT/workfeed?host=DIR.
# BENCH_SCALES=1 (comma-separated, e.g. 1,2 for what an upload asks, or 3), BENCH_KINDS=route,heatmap.
# BENCH_BASE_BIN=DIR: compare with the programs in DIR (another build, e.g. main's release build
# copied aside) in BENCH_ROUNDS=3 alternated rounds (DIR's, this build's, DIR's, ...), each a whole
# run as above; prints each round's pictures a second and the workers' CPU milliseconds a picture,
# then the medians and the ratios (this build against DIR's).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${BENCH_BASE_BIN:-}" ] && [ "${BENCH_COMPARING:-0}" != "1" ]; then
  if [ -n "${BENCH_BIN:-}" ]; then
    this="$BENCH_BIN"
  else
    [ "${BENCH_SKIP_BUILD:-0}" = "1" ] || for product in workfeed-coordinator workfeed-worker workctl; do swift build -c release --product "$product" >/dev/null; done
    this="$(swift build -c release --show-bin-path)"
  fi
  results=$(mktemp)
  trap 'rm -f "$results" "$results.err"' EXIT
  for round in $(seq 1 "${BENCH_ROUNDS:-3}"); do
    for which in base this; do
      if [ "$which" = base ]; then dir="$BENCH_BASE_BIN"; else dir="$this"; fi
      output=$(BENCH_COMPARING=1 BENCH_BIN="$dir" "$0" 2>"$results.err") || { cat "$results.err" >&2; exit 1; }
      rate=$(echo "$output" | sed -n 's/.*pictures in .* s: \([0-9]*\) map pictures\/s/\1/p')
      pictures=$(echo "$output" | sed -n 's/^bench-maps: \([0-9]*\) of .*/\1/p')
      cpu=$(echo "$output" | sed -n 's/.*workers \([0-9.]*\) and \([0-9.]*\).*/\1 \2/p')
      echo "$output" | head -n 1 | sed "s/^/$which round $round: /"
      ms=$(python3 -c "a, b = map(float, '$cpu'.split()); print(f'{(a + b) * 1000 / $pictures:.2f}')")
      echo "bench-maps: $which round $round: $rate map pictures/s, workers' CPU $ms ms a picture"
      echo "$which $rate $ms" >>"$results"
    done
  done
  python3 - "$results" <<'PY2'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def median(which, column):
    return statistics.median(float(row[column]) for row in rows if row[0] == which)
for name, column in (("map pictures/s", 1), ("workers' CPU ms a picture", 2)):
    base, this = median("base", column), median("this", column)
    print(f"bench-maps: median {name}: base {base:.2f}, this build {this:.2f}: this/base {this / base:.3f}")
PY2
  exit 0
fi

smoke="${BENCH_SMOKE:-0}"
workouts="${BENCH_WORKOUTS:-$([ "$smoke" = "1" ] && echo 8 || echo 500)}"
points="${BENCH_POINTS:-$([ "$smoke" = "1" ] && echo 200 || echo 600)}"
seed="${BENCH_SEED:-7}"
cache_mb="${BENCH_CACHE_MB:-64}"
if [ -n "${BENCH_BIN:-}" ]; then
  bin="$BENCH_BIN"
else
  if [ "${BENCH_SKIP_BUILD:-0}" != "1" ]; then
    deploy/install-deps.sh
    for product in workfeed-coordinator workfeed-worker workctl; do swift build -c release --product "$product" >/dev/null; done
  fi
  bin="$(swift build -c release --show-bin-path)"
fi
for program in workfeed-coordinator workfeed-worker workctl; do
  [ -x "$bin/$program" ] || { echo "bench-maps: $bin/$program is not built (swift build, or unset BENCH_BIN)" >&2; exit 1; }
done

run=var/bench-maps
rm -rf "$run"
mkdir -p "$run/gpx" "$run/cache"
python3 - "$run/gpx" "$workouts" "$points" "$seed" <<'PY'
import math, random, sys
from datetime import datetime, timedelta, timezone
out, count, points, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
# Anywhere inside deploy/basemap/heidelberg.mbtiles (bounds 8.5837,49.3434,8.8445,49.5059), away
# from its edges, with steps of 2 to 40 m: short and long routes, so pictures use every tile zoom
# and the workers' tile caches fill.
for n in range(count):
    lat, lon = rng.uniform(49.37, 49.48), rng.uniform(8.62, 8.81)
    step = rng.choice([0.2, 0.5, 1, 2, 4])
    heading = rng.uniform(0, 2 * math.pi)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(hours=n)
    rows = []
    for i in range(points):
        heading += rng.gauss(0, 0.25)
        lat += 0.00009 * step * math.cos(heading)
        lon += 0.00014 * step * math.sin(heading)
        lat = min(max(lat, 49.35), 49.50); lon = min(max(lon, 8.60), 8.83)
        t = (start + timedelta(seconds=2 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        hr = int(120 + 40 * math.sin(i / 60) + rng.uniform(-5, 5))
        rows.append(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><time>{t}</time><extensions>'
                    f'<gpxtpx:TrackPointExtension><gpxtpx:hr>{hr}</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>')
    with open(f"{out}/bench-{n:05d}.gpx", "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="workfeed bench-maps" '
                'xmlns="http://www.topografix.com/GPX/1/1" '
                'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">'
                f'<trk><name>bench {n}</name><type>running</type><trkseg>{"".join(rows)}</trkseg></trk></gpx>\n')
PY

export WORKFEED_BASEMAP_TILESETS="$PWD/deploy/basemap/heidelberg.mbtiles"
export WORKFEED_CACHE_DIRECTORY="$run/cache"
export WORKFEED_BASEMAP_CACHE_MB="$cache_mb"
# Ports of its own, so that a demo or another run on the machine is not in the way.
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
workers_endpoint="tcp://127.0.0.1:$(port)"
export WORKFEED_CONTROL="tcp://127.0.0.1:$(port)"  # workctl's
export WORKFEED_LISTEN_EVENTS="tcp://127.0.0.1:$(port)" WORKFEED_METRICS_LISTEN=""
store="${STORE:-directory}"
index="${INDEX:-sqlite}"
pids=()
moto=""
pg_dir=""
as_postgres=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$moto" ]; then kill -KILL "$moto" 2>/dev/null || true; wait "$moto" 2>/dev/null || true; fi
  if [ -n "$pg_dir" ]; then
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$pg_dir"
  fi
  [ "${BENCH_KEEP:-0}" = "1" ] || rm -rf "$run"
}
trap stop_all EXIT

case "$index" in
  sqlite) export WORKFEED_INDEX_PATH="$run/index.sqlite" ;;
  postgres)
    pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -x "$pg_bin/initdb" ] || { echo "bench-maps: INDEX=postgres needs Debian's postgresql (deploy/install-test-deps.sh)" >&2; exit 1; }
    pg_dir="$(mktemp -d /tmp/workfeed-bench-maps-pg.XXXXXX)"
    chmod 755 "$pg_dir"
    # The server refuses to run as root: as root (CI), the cluster is the postgres user's.
    if [ "$(id -u)" = "0" ]; then chown postgres "$pg_dir"; as_postgres=(runuser -u postgres --); fi
    "${as_postgres[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U workfeed --auth-local=trust -E UTF8 --locale=C >"$pg_dir/initdb.log" 2>&1 \
      || { cat "$pg_dir/initdb.log" >&2; exit 1; }
    pg_port=$(port)
    # The socket only (listen_addresses empty), named by the port; the server's output in its log
    # file, so that nothing here waits on a descriptor the server keeps.
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 \
      -o "-k $pg_dir -p $pg_port -c listen_addresses= -c max_connections=50" start >/dev/null \
      || { cat "$pg_dir/server.log" >&2; exit 1; }
    "${as_postgres[@]}" "$pg_bin/createdb" -h "$pg_dir" -p "$pg_port" -U workfeed workfeed
    export WORKFEED_INDEX_URL="postgres://workfeed@:$pg_port/workfeed?host=$pg_dir"
    # Kept originals go beside the index file by default; there is none here.
    export WORKFEED_ORIGINALS_DIRECTORY="$run/originals"
    ;;
  *)
    echo "bench-maps: INDEX is sqlite (the default) or postgres, not '$index'" >&2
    exit 64
    ;;
esac

if [ "$store" = "s3" ]; then
  [ -x var/test-python/bin/moto_server ] || deploy/install-test-deps.sh
  s3_port=$(port)
  var/test-python/bin/moto_server -H 127.0.0.1 -p "$s3_port" >"$run/moto.log" 2>&1 &
  moto=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$s3_port/" && break; sleep 0.1; done
  curl -s -f -X PUT "http://127.0.0.1:$s3_port/bench-maps" >/dev/null
  export WORKFEED_CACHE_DIRECTORY="s3://bench-maps/pictures" WORKFEED_CACHE="s3://bench-maps/pictures"
  export WORKFEED_S3_ENDPOINT="http://127.0.0.1:$s3_port" AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
elif [ "$store" != "directory" ]; then
  echo "bench-maps: STORE is directory (the default) or s3, not '$store'" >&2
  exit 64
fi

"$bin/workfeed-coordinator" --listen-workers "$workers_endpoint" --listen-control "$WORKFEED_CONTROL" >"$run/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  "$bin/workctl" status --timeout 1 >/dev/null 2>&1 && break
  sleep 0.2
done
for n in 1 2; do
  "$bin/workfeed-worker" --connect "$workers_endpoint" --name "bench-$n" >"$run/worker-$n.log" 2>&1 &
  pids+=($!)
done
workers=("${pids[1]}" "${pids[2]}")

"$bin/workctl" import "$run/gpx" >/dev/null
scales="${BENCH_SCALES:-1}"
kinds="${BENCH_KINDS:-route,heatmap}"
jobs=$(( workouts * 2 * $(echo "$kinds" | tr ',' '\n' | wc -l) * $(echo "$scales" | tr ',' '\n' | wc -l) ))
# CPU seconds (user + system) a process has used so far, from /proc/PID/stat.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# The PostgreSQL server's: the postmaster and its processes (a backend a connection, which lives
# as long as the connection; cutime/cstime count the ones that ended).
pg_cpu_seconds() {
  [ -n "$pg_dir" ] || { echo 0; return; }
  local master
  master=$(head -n 1 "$pg_dir/data/postmaster.pid")
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$master/stat"
    for child in $(cat "/proc/$master/task/$master/children" 2>/dev/null); do awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null; done
  } | awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {print s / hz}'
}
cpu_before=()
for pid in "${pids[@]}" $moto; do cpu_before+=("$(cpu_seconds "$pid")"); done
pg_before=$(pg_cpu_seconds)
requests_before=0
[ -z "$moto" ] || requests_before=$(wc -l <"$run/moto.log")
started=$(date +%s.%N)
"$bin/workctl" enqueue --all --kind "$kinds" --theme light,dark --scale "$scales" --wait --wait-timeout 60 >/dev/null || [ $? -eq 2 ]
finished=$(date +%s.%N)
requests_after=0
[ -z "$moto" ] || requests_after=$(wc -l <"$run/moto.log")
cpu_used=()
n=0
for pid in "${pids[@]}" $moto; do cpu_used+=("$(python3 -c "print(f'{$(cpu_seconds "$pid") - ${cpu_before[$n]}:.1f}')")"); n=$((n + 1)); done
pg_used=$(python3 -c "print(f'{$(pg_cpu_seconds) - $pg_before:.1f}')")
# Pictures by their picture names: the store's keys/ names are the same pictures again.
if [ "$store" = "s3" ]; then
  generated=$(python3 - "$WORKFEED_S3_ENDPOINT" <<'PY'
import re, sys, urllib.parse, urllib.request
endpoint, count, token = sys.argv[1], 0, None
while True:
    url = f"{endpoint}/bench-maps?list-type=2&prefix=pictures/"
    if token: url += "&continuation-token=" + urllib.parse.quote(token, safe="")
    text = urllib.request.urlopen(url).read().decode()
    count += sum(1 for key in re.findall(r"<Key>([^<]*)</Key>", text) if key.endswith(".png") and "/keys/" not in key)
    more = re.search(r"<NextContinuationToken>([^<]*)</NextContinuationToken>", text)
    if "<IsTruncated>true</IsTruncated>" not in text or not more: break
    token = more.group(1)
print(count)
PY
)
else
  generated=$(find "$run/cache" -path "$run/cache/keys" -prune -o -name '*.png' -print | wc -l)
fi
seconds=$(python3 -c "print(f'{$finished - $started:.1f}')")
rate=$(python3 -c "print(f'{$generated / ($finished - $started):.0f}')")
echo "bench-maps: index $index, store $store, $(nproc) cores, 2 workers, Heidelberg, $workouts workouts x $points points, ${kinds//,/+} x light+dark @${scales//,/x,@}x 512x512"
echo "bench-maps: $generated of $jobs pictures in ${seconds} s: ${rate} map pictures/s"
for n in 0 1; do
  pid="${workers[$n]}"
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  echo "bench-maps: worker $((n + 1)): peak resident $((hwm / 1024)) MiB, now $((rss / 1024)) MiB (tile cache budget ${cache_mb} MiB)"
done
echo "bench-maps: CPU seconds while drawing: coordinator ${cpu_used[0]}, workers ${cpu_used[1]} and ${cpu_used[2]}$([ -z "$moto" ] || echo ", moto ${cpu_used[3]}")$([ -z "$pg_dir" ] || echo ", PostgreSQL $pg_used")"
if [ -n "$pg_dir" ]; then
  # Row versions of the job table: an update that changes no indexed column and finds room on its
  # page is HOT (no index entry written); the others write one in each of the table's indexes.
  "${as_postgres[@]}" "$pg_bin/psql" -h "$pg_dir" -p "$pg_port" -U workfeed -d workfeed -At -F ' ' -c \
    "SELECT 'bench-maps: job rows inserted ' || n_tup_ins || ', updated ' || n_tup_upd || ' (HOT: ' || n_tup_hot_upd || ')' FROM pg_stat_user_tables WHERE relname = 'job'" || true
fi
if [ -n "$moto" ]; then
  # moto logs a line a request: what each picture cost in requests, by method.
  sed -n "$((requests_before + 1)),${requests_after}p" "$run/moto.log" | grep '" [0-9][0-9][0-9] ' | awk -v p="$generated" \
    '{split($0, q, "\""); split(q[2], r, " "); n[r[1]]++; t++} END {s = ""; for (m in n) s = s " " m " " n[m]; printf "bench-maps: S3 requests while drawing: %d (%.2f a picture):%s\n", t, t / (p > 0 ? p : 1), s}'
fi
for pid in "${workers[@]}"; do kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; done
for n in 1 2; do
  echo "bench-maps: worker $n tile cache at the end: $(grep -o 'tile_cache_[a-z]*=[0-9]*' "$run/worker-$n.log" | tr '\n' ' ')"
done
if [ "$smoke" = "1" ] && [ "$generated" -ne "$jobs" ]; then
  echo "bench-maps: smoke run: $generated of $jobs pictures drawn; logs kept in $run" >&2
  BENCH_KEEP=1
  exit 1
fi
