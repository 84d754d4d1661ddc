#!/usr/bin/env bash
# One owner uploading at its limit, and what everyone else sees meanwhile (issue 37, item 3;
# docs/benchmarks.md, "Uploads beside everyone else"): `uploads.per_owner_per_minute` (30) multipart
# uploads of a large GPX file sent at once by one owner, while /healthz and another owner's feed
# page are asked for every 50 ms; prints the uploads' answers, the two latencies (p50, p95, max)
# during the uploads and before them, and the gateway's peak resident memory (VmHWM).
# A coordinator and a gateway on loopback (no worker), everything in a temporary directory removed
# at the end. BENCH_BIN=DIR runs the programs in DIR (e.g. .build/debug) instead of a release build;
# BENCH_UPLOAD_MB (15) is the file's size, BENCH_UPLOADS (30) how many are sent, BENCH_AT_ONCE (all of
# them) how many at a time (2: as a client that keeps to the gateway's uploads at once per owner);
# BENCH_SMOKE=1 is the small size `make test` runs so that the script cannot rot (2 uploads of
# 1 MB; an answer other than 200 or 201 fails it). Its figures are no benchmark then.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke="${BENCH_SMOKE:-0}"
megabytes="${BENCH_UPLOAD_MB:-$([ "$smoke" = "1" ] && echo 1 || echo 15)}"
uploads="${BENCH_UPLOADS:-$([ "$smoke" = "1" ] && echo 2 || echo 30)}"
at_once="${BENCH_AT_ONCE:-$uploads}"
source deploy/bench-common.sh
bench_programs bench-uploads "${BENCH_BIN:-}" workfeed-coordinator workfeed-worker workctl workfeed-gateway workfeed-bench
bench_start bench-uploads 1000 0
uploader="$("$bin/workctl" token create --owner uploader --expires 1d --secret-file "$dir/token.secret")"

export SMOKE="$smoke" BASE="$base" TOKEN="$token" UPLOADER="$uploader" DIR="$dir" PID="$gateway_pid" MEGABYTES="$megabytes" UPLOADS="$uploads" AT_ONCE="$at_once" BUILD="$build"
python3 - <<'PYTHON'
import os, threading, time, urllib.error, urllib.request, statistics
base, token, uploader, directory = os.environ["BASE"], os.environ["TOKEN"], os.environ["UPLOADER"], os.environ["DIR"]
pid, megabytes, uploads = int(os.environ["PID"]), float(os.environ["MEGABYTES"]), int(os.environ["UPLOADS"])
at_once = max(1, min(uploads, int(os.environ["AT_ONCE"])))

# A GPX run of about MEGABYTES: points a second apart along a line near Heidelberg, with elevation.
points, size, index = [], 0, 0
while size < megabytes * 1_000_000:
    t = 1_700_000_000 + index
    line = '<trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele><time>%s</time></trkpt>\n' % (
        49.4 + index * 1e-6, 8.69 + index * 1e-6, 110 + (index % 50) * 0.1, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)))
    points.append(line); size += len(line); index += 1
gpx = ('<?xml version="1.0"?><gpx version="1.1" creator="bench" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n'
       + "".join(points) + "</trkseg></trk></gpx>\n").encode()
boundary = "bench-uploads-boundary"
def body(n):
    return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nrun {n}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run-{n}.gpx\"\r\nContent-Type: application/gpx+xml\r\n\r\n"
            ).encode() + gpx.replace(b"creator=\"bench\"", b"creator=\"bench %d\"" % n) + f"\r\n--{boundary}--\r\n".encode()

def rss():
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            fields[name] = value.strip()
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024

def timed(path, bearer=None):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + bearer} if bearer else {})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=120) as reply: reply.read(); status = reply.status
    except urllib.error.HTTPError as error: status = error.code
    return (time.monotonic() - started) * 1000, status

def probe(stop, out):
    while not stop.is_set():
        out["healthz"].append(timed("/healthz")[0])
        out["feed"].append(timed("/v1/feed?limit=20", token)[0])
        time.sleep(0.05)

def summary(values):
    if not values: return "none"
    values = sorted(values)
    p = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return f"p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, max {values[-1]:.1f} ms ({len(values)} requests)"

# Quiet first: the latencies with nothing else going on.
quiet, stop = {"healthz": [], "feed": []}, threading.Event()
thread = threading.Thread(target=probe, args=(stop, quiet)); thread.start(); time.sleep(3); stop.set(); thread.join()
before_rss, _ = rss()

loaded, stop = {"healthz": [], "feed": []}, threading.Event()
thread = threading.Thread(target=probe, args=(stop, loaded)); thread.start()
answers, lock = {}, threading.Lock()
def upload(n):
    request = urllib.request.Request(base + "/v1/workouts", data=body(n), method="POST",
        headers={"Authorization": "Bearer " + uploader, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(request, timeout=600) as reply: reply.read(); status = reply.status
    except urllib.error.HTTPError as error: status = error.code
    except Exception as error: status = f"{type(error).__name__}: {getattr(error, 'reason', error)}"
    with lock: answers[status] = answers.get(status, 0) + 1
started = time.monotonic()
def sender(first):
    for n in range(first, uploads, at_once): upload(n)
workers = [threading.Thread(target=sender, args=(n,)) for n in range(at_once)]
for worker in workers: worker.start()
peak = 0
while any(worker.is_alive() for worker in workers):
    peak = max(peak, rss()[0]); time.sleep(0.1)
elapsed = time.monotonic() - started
stop.set(); thread.join()
_, hwm = rss()
print(f"bench-uploads ({os.environ['BUILD']}): {uploads} multipart uploads of a {len(gpx) / 1e6:.1f} MB GPX by one owner, {at_once} at a time, {elapsed:.1f} s; answers {answers}")
print(f"  /healthz quiet:      {summary(quiet['healthz'])}")
print(f"  /healthz uploading:  {summary(loaded['healthz'])}")
print(f"  other feed quiet:    {summary(quiet['feed'])}")
print(f"  other feed uploading: {summary(loaded['feed'])}")
print(f"  gateway resident: {before_rss} MiB before, peak {max(peak, hwm)} MiB (VmHWM {hwm} MiB)")
if os.environ["SMOKE"] == "1" and set(answers) - {200, 201}:
    raise SystemExit(f"bench-uploads: smoke run answered {answers}")
PYTHON
