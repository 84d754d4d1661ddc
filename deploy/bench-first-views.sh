#!/usr/bin/env bash
# First views from a bucket, and what a flood of made-up keys does to them (issue 37, item 5;
# docs/benchmarks.md, "First views from a bucket"). A bucket (moto on loopback), a coordinator, two
# workers and a gateway on s3://, behind a "proxy" the gateway trusts (loopback, naming each client
# in X-Forwarded-For): BENCH_WORKOUTS (300) workouts with their route pictures drawn (light and
# dark @1x), then
#   1. uncached pictures a second: a third of the light keys read once each, 16 at a time;
#   2. first views alone: another third read one at a time by one client (p50, p95, max);
#   3. first views during a flood of made-up keys from one client (16 threads), then from 16
#      clients, each a thread: the dark keys read one at a time meanwhile, and the flood's answers.
# The red team's figures before issue 37 (their harness, release builds): about 40 uncached
# pictures a second, and first views from 48 ms to 813 ms under made-up keys.
# BENCH_BIN=DIR runs the programs in DIR (e.g. .build/debug) instead of a release build;
# BENCH_SMOKE=1 is the small size `make test` runs so that the script cannot rot (30 workouts;
# a real key not answered 200, or a made-up one answered anything but 404 or 429, fails it).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke="${BENCH_SMOKE:-0}"
workouts="${BENCH_WORKOUTS:-$([ "$smoke" = "1" ] && echo 30 || echo 300)}"
[ -x var/test-python/bin/moto_server ] || deploy/install-test-deps.sh
source deploy/bench-common.sh
bench_programs bench-first-views "${BENCH_BIN:-}" workfeed-coordinator workfeed-worker workctl workfeed-gateway workfeed-bench

s3_port=$(bench_port)
moto_log="$(mktemp /tmp/workfeed-bench-moto.XXXXXX)"
var/test-python/bin/moto_server -H 127.0.0.1 -p "$s3_port" >"$moto_log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$s3_port/" && break; sleep 0.1; done
curl -s -f -X PUT "http://127.0.0.1:$s3_port/bench-first-views" >/dev/null
export WORKFEED_S3_ENDPOINT="http://127.0.0.1:$s3_port" AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export WORKFEED_HTTP_TRUSTED_PROXIES=127.0.0.1
export BENCH_CACHE="s3://bench-first-views/pictures" BENCH_READS_PER_CLIENT=8
bench_start bench-first-views "$workouts" 2
rm -f "$moto_log"

"$bin/workctl" enqueue --all --kind route --theme light,dark --scale 1 --coordinator "$control" >/dev/null
for _ in $(seq 1 600); do
  pending=$("$bin/workctl" status --coordinator "$control" --json | python3 -c 'import json, sys; print(sum(c["count"] for c in json.load(sys.stdin)["counts"] if c["status"] == "pending"))')
  [ "$pending" = "0" ] && break
  sleep 0.5
done
echo "bench-first-views: $workouts workouts, their route pictures drawn into the bucket ($build, $(nproc) cores, $(date -u +%Y-%m-%d))"

export SMOKE="$smoke" BASE="$base" TOKEN="$token"
python3 - <<'PYTHON'
import json, os, random, statistics, threading, time, urllib.error, urllib.request
base, token, smoke = os.environ["BASE"], os.environ["TOKEN"], os.environ["SMOKE"] == "1"

def call(path, client, bearer=None):
    headers = {"X-Forwarded-For": client}
    if bearer: headers["Authorization"] = "Bearer " + bearer
    started = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=60) as reply:
            reply.read(); status = reply.status
    except urllib.error.HTTPError as error:
        error.read(); status = error.code
    return status, (time.monotonic() - started) * 1000

# Every workout's light and dark route picture, as the feed names them.
keys = {"light": [], "dark": []}
cursor = None
while True:
    page = json.load(urllib.request.urlopen(urllib.request.Request(
        base + "/v1/feed?limit=100" + (f"&cursor={cursor}" if cursor else ""), headers={"Authorization": "Bearer " + token})))
    for item in page["items"]:
        for picture in item["pictures"]:
            if picture["kind"] == "route" and picture["scale"] == 1 and picture.get("url"):
                keys[picture["theme"]].append(picture["url"])
    cursor = page.get("next")
    if not cursor: break
light, dark = keys["light"], keys["dark"]
third = len(light) // 3
print(f"bench-first-views: {len(light)} light and {len(dark)} dark pictures in the feed")

def summary(name, times):
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"  {name}: {len(times)} views, p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")

failures = []
def check(status, what):
    if status != 200: failures.append(f"{what}: {status}")

# 1. Uncached pictures a second, 16 at a time, each from a client of its own.
urls = light[:third]
lock, index = threading.Lock(), [0]
def reader(number):
    while True:
        with lock:
            if index[0] >= len(urls): return
            url = urls[index[0]]; index[0] += 1
        status, _ = call(url, f"192.0.2.{number + 1}")
        check(status, url)
started = time.monotonic()
threads = [threading.Thread(target=reader, args=(n,)) for n in range(16)]
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.monotonic() - started
print(f"1. uncached pictures from the bucket, 16 at a time: {len(urls)} in {elapsed:.2f} s, {len(urls) / elapsed:.0f} a second")

# 2. First views alone, one at a time.
alone = []
for url in light[third:2 * third]:
    status, ms = call(url, "198.51.100.7"); check(status, url); alone.append(ms)
print("2. first views, nothing else asked:")
summary("first views", alone)

# 3. First views while made-up keys flood in, from one client and then from 16.
def flood(clients, stop, answers):
    def run(number):
        rng = random.Random(number)
        while not stop.is_set():
            made = "%064x" % rng.getrandbits(256)
            status, _ = call(f"/v1/pictures/{made}.png", clients[number % len(clients)])
            with lock: answers[status] = answers.get(status, 0) + 1
    return [threading.Thread(target=run, args=(n,)) for n in range(16)]
views = dark[: len(dark) // 2], dark[len(dark) // 2:]
for label, clients, urls in [("one client", ["203.0.113.9"], views[0]), ("16 clients", [f"203.0.113.{n + 10}" for n in range(16)], views[1])]:
    stop, answers = threading.Event(), {}
    threads = flood(clients, stop, answers)
    for t in threads: t.start()
    time.sleep(0.5)
    times, flood_started = [], time.monotonic()
    for url in urls:
        status, ms = call(url, "198.51.100.7"); check(status, url); times.append(ms)
    stop.set()
    for t in threads: t.join()
    seconds = time.monotonic() - flood_started + 0.5
    print(f"3. first views during a flood of made-up keys from {label} (16 threads):")
    summary("first views", times)
    print(f"  the flood: {sum(answers.values())} requests, {sum(answers.values()) / seconds:.0f} a second, answered {dict(sorted(answers.items()))}")
    if set(answers) - {404, 429}: failures.append(f"made-up keys answered {answers}")

if failures:
    print("bench-first-views: FAILED:", "; ".join(failures[:5]))
    raise SystemExit(1)
PYTHON
