#!/usr/bin/env bash
# The gateway under load, on loopback, in one run (docs/benchmarks.md, "Gateway"):
#   1. GET /v1/pictures/{key}.png from the gateway against nginx serving the same files from the
#      same cache (wrk, the same picture list, the same connections);
#   2. GET /v1/feed with a valid token over an index of 100,000 workouts (wrk, pages all over the feed);
#   3. the picture-request endpoint while a bulk regeneration of 200,000 pictures runs: how long
#      until an interactive picture is there (p50, p95).
# Release build; a coordinator, two workers and a gateway on loopback; everything in a temporary
# directory, removed at the end. Run from the repository root: `make bench-gateway`.
# BENCH_SECONDS (15), BENCH_CONNECTIONS (32), BENCH_WORKOUTS (100000) change the run;
# BENCH_BIN=DIR runs the programs in DIR, built already (e.g. .build/debug), instead of a release
# build. BENCH_SMOKE=1 is the small size `make test` runs so that the script cannot rot (2 s of
# wrk with 4 connections, 3,000 workouts, unless set; any non-2xx answer fails it). Its figures
# are no benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh wrk nginx-light
smoke="${BENCH_SMOKE:-0}"
seconds="${BENCH_SECONDS:-$([ "$smoke" = "1" ] && echo 2 || echo 15)}"
connections="${BENCH_CONNECTIONS:-$([ "$smoke" = "1" ] && echo 4 || echo 32)}"
workouts="${BENCH_WORKOUTS:-$([ "$smoke" = "1" ] && echo 3000 || echo 100000)}"
source deploy/bench-common.sh
bench_programs bench-gateway "${BENCH_BIN:-}" workfeed-coordinator workfeed-worker workctl workfeed-gateway workfeed-bench
bench_start bench-gateway "$workouts" 2
nginx_port=$(bench_port)

# The helper below walks the feed, draws pictures and measures the interactive requests.
export BASE="$base" TOKEN="$token" DIR="$dir" WORKCTL="$bin/workctl" CONTROL="$control"
export PICTURES="$([ "$smoke" = "1" ] && echo 40 || echo 300)" INTERACTIVE="$([ "$smoke" = "1" ] && echo 8 || echo 40)"
python3 - <<'PYTHON'
import json, os, subprocess, urllib.parse, urllib.request
base, token, directory = os.environ["BASE"], os.environ["TOKEN"], os.environ["DIR"]
pictures = int(os.environ["PICTURES"])
def get(path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)
# Cursors all over the feed: 100 pages of 1,000 apart, and the ids of the first 300 workouts.
cursors, ids, cursor = [], [], None
page = get("/v1/feed?limit=100")
ids = [item["id"] for item in page["items"]]
cursor = page["next"]
while cursor and len(cursors) < 100:
    cursors.append(cursor)
    page = get("/v1/feed?limit=100&cursor=" + urllib.parse.quote(cursor, safe=""))
    if len(ids) < pictures: ids += [item["id"] for item in page["items"]]
    cursor = page.get("next")
    for _ in range(9):  # skip 900 workouts between cursors
        if not cursor: break
        page = get("/v1/feed?limit=100&cursor=" + urllib.parse.quote(cursor, safe=""))
        cursor = page.get("next")
with open(os.path.join(directory, "feed-paths.txt"), "w") as out:
    out.write("/v1/feed?limit=20\n")
    for c in cursors: out.write("/v1/feed?limit=20&cursor=" + urllib.parse.quote(c, safe="") + "\n")
# 300 route pictures (40 in a smoke run) drawn, light, @1x: the picture list for wrk and nginx.
subprocess.run([os.environ["WORKCTL"], "enqueue", "--ids", *ids[:pictures], "--kind", "route", "--theme", "light", "--wait", "--wait-timeout", "60",
                "--coordinator", os.environ["CONTROL"]], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
urls = []
for id in ids[:pictures]:
    urls += [p["url"] for p in get("/v1/workouts/" + id)["pictures"] if p.get("url")]
with open(os.path.join(directory, "picture-paths.txt"), "w") as out:
    out.write("\n".join(urls) + "\n")
print(f"bench-gateway: {len(cursors) + 1} feed pages and {len(urls)} pictures to ask for")
PYTHON

bench_paths_lua "$dir/paths.lua"

mkdir -p "$dir/nginx"
cat >"$dir/nginx/nginx.conf" <<NGINX
daemon off;
worker_processes auto;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
user $(id -un);
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path $dir/nginx; proxy_temp_path $dir/nginx; fastcgi_temp_path $dir/nginx; uwsgi_temp_path $dir/nginx; scgi_temp_path $dir/nginx;
  server {
    listen 127.0.0.1:$nginx_port;
    location ~ "^/v1/pictures/(([0-9a-f]{2})[0-9a-f]{62})\.png\$" {
      alias $cache/keys/\$2/\$1.png;
      default_type image/png;
      add_header Cache-Control "public, max-age=31536000, immutable";
    }
  }
}
NGINX
/usr/sbin/nginx -c "$dir/nginx/nginx.conf" &
pids+=($!)
sleep 0.5

run_wrk() {
  local label="$1" url="$2" paths="$3" token="$4"
  echo
  echo "## $label"
  WRK_PATHS="$paths" WRK_TOKEN="$token" wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$dir/paths.lua" "$url" >"$dir/wrk.out"
  grep -E "Requests/sec|Transfer/sec|Latency |  (50|75|90|99)%|requests in|Non-2xx|Socket errors" "$dir/wrk.out"
  if [ "$smoke" = "1" ] && grep -q "Non-2xx" "$dir/wrk.out"; then
    echo "bench-gateway: smoke run: non-2xx answers to $label" >&2
    exit 1
  fi
}

echo
echo "bench-gateway: wrk -t2 -c$connections -d${seconds}s on loopback, $(nproc) cores, $build, $(date -u +%Y-%m-%d)"
run_wrk "pictures from nginx (the same files, sendfile)" "http://127.0.0.1:$nginx_port" "$dir/picture-paths.txt" ""
run_wrk "pictures from the gateway" "$base" "$dir/picture-paths.txt" ""
run_wrk "GET /v1/feed?limit=20 over $workouts workouts ($(wc -l <"$dir/feed-paths.txt") positions all over the feed, a valid token)" "$base" "$dir/feed-paths.txt" "$token"

echo
echo "## picture requests while a bulk regeneration runs"
"$bin/workctl" enqueue --all --kind route --theme light,dark --coordinator "$control" >/dev/null
python3 - <<'PYTHON'
import json, os, random, time, urllib.error, urllib.parse, urllib.request
base, token = os.environ["BASE"], os.environ["TOKEN"]
def call(path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, None
with urllib.request.urlopen(urllib.request.Request(base + "/v1/feed?limit=100", headers={"Authorization": "Bearer " + token})) as reply:
    first = json.load(reply)
# Workouts deep in the feed, whose dark pictures wait behind the bulk work at priority 0.
random.seed(14)
ids = []
cursor = first["next"]
for _ in range(int(os.environ["INTERACTIVE"])):
    if not cursor: break
    with urllib.request.urlopen(urllib.request.Request(base + "/v1/feed?limit=100&cursor=" + urllib.parse.quote(cursor, safe=""),
                                                       headers={"Authorization": "Bearer " + token})) as reply:
        page = json.load(reply)
    ids.append(random.choice(page["items"])["id"])
    cursor = page["next"]
times = []
for id in ids:
    started = time.monotonic()
    status = 0
    while status != 200:
        status, _ = call(f"/v1/workouts/{id}/pictures/route/dark?wait=5")
        if status not in (200, 202): break
    times.append(time.monotonic() - started)
    time.sleep(0.2)
times.sort()
pick = lambda q: times[min(len(times) - 1, int(round(q * (len(times) - 1))))]
print(f"  {len(times)} interactive pictures (route dark @1x, wait=5): p50 {pick(0.5) * 1000:.0f} ms, p95 {pick(0.95) * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms")
PYTHON
"$bin/workctl" status --coordinator "$control" | sed -n '1p;/^queue/p' | sed 's/^/  bulk meanwhile: /'
echo
echo "bench-gateway: done (gateway resident memory: $(grep VmHWM /proc/"$gateway_pid"/status 2>/dev/null | awk '{print $2/1024 " MiB"}'))"
