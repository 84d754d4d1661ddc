#!/usr/bin/env bash
# `make attack`: what issue 13 found, tried again against the real programs on this machine, each
# attack printing what it tried and what happened, and a line of counts at the end. Exits 1 when
# any attack broke through. docs/security.md says what is defended and how.
#
#   1. On the sockets (workfeed-bench --only attack, a coordinator on loopback): crafted IMPORT
#      times, requests out of range, a FEED/STATUS flood during a bulk render, garbage, forged
#      roles, refused connections, terminal escapes, a slow /metrics client, clients that never
#      read their replies (unread-replies), one owner's flood of pictures (owner-flood).
#   2. Here: the loopback bypass address and a public metrics address (in a network namespace of
#      their own, `unshare -n`, so that nothing is ever bound on this machine's interfaces), a
#      second coordinator on the same index, an empty index file, a damaged index.
#   3. The full disk: ChaosTests' FullCacheTests (the workers' cache on a small tmpfs in a mount
#      namespace of its own, filled during a bulk render and freed), with more jobs.
#   4. The gateway's edge (issue 23): a coordinator paused with SIGSTOP under a real gateway (a
#      503 must not be carried out when it resumes), and GatewayTests' EdgeTests, one case each
#      (links in the cache, a 503 carried out later, out-of-range uploads, claimed bodies, polar
#      zones, 503 details, headers, an empty picture name, a trickled head and body).
#
# Settings, all optional:
#   ATTACK_SMALL=1            the smaller form the test suite runs (fewer jobs and messages; the
#                             timing criteria are printed, not judged; no full-disk run, which the
#                             suite runs on its own)
#   ATTACK_RELEASE=1          release builds of the programs
#   ATTACK_SKIP_BUILD=1       use what is built (WORKFEED_BIN_DIR, else SwiftPM's bin path)
#   ATTACK_FULL_CACHE_ROUTES  workouts for the full-disk run (150: 600 jobs)
#   ATTACK_LATE_503_TRIALS    trials of the paused coordinator (50; 3 in the small form)
#   SCRATCH_PATH=.build       SwiftPM's build directory
# Needs root, or user namespaces, for the namespaces (attacks that cannot run are "skipped").
set -uo pipefail
cd "$(dirname "$0")/.."

scratch="${SCRATCH_PATH:-.build}"
configuration=debug
[ "${ATTACK_RELEASE:-0}" = "1" ] && configuration=release
if [ "${ATTACK_SKIP_BUILD:-0}" != "1" ]; then
  swift build --build-tests --scratch-path "$scratch" || exit 2
  if [ "$configuration" = release ]; then swift build -c release --scratch-path "$scratch" || exit 2; fi
fi
bin="${WORKFEED_BIN_DIR:-$(swift build -c "$configuration" --scratch-path "$scratch" --show-bin-path)}"
for program in workfeed-coordinator workfeed-worker workctl workfeed-bench workfeed-gateway; do
  [ -x "$bin/$program" ] || { echo "attack: $bin/$program is not built (swift build --build-tests)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/workfeed-attack.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

tried=0 held=0 broke=0 skipped=0
broken=()
# wanted NAME...: whether ATTACK_ONLY (names with commas) takes in any of the attacks NAME (a
# section runs when it does; unset or empty: every section).
wanted() {
  [ -z "${ATTACK_ONLY:-}" ] && return 0
  local name
  for name in "$@"; do [[ ",$ATTACK_ONLY," == *",$name,"* ]] && return 0; done
  return 1
}
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
verdict() { # NAME held|broke|skipped WHAT-HAPPENED
  tried=$((tried + 1))
  case "$2" in
  held) held=$((held + 1)); echo "attack $1: held: $3" ;;
  broke) broke=$((broke + 1)); broken+=("$1"); echo "attack $1: BROKE: $3" ;;
  *) skipped=$((skipped + 1)); echo "attack $1: skipped: $3" ;;
  esac
}

# --- 1. On the sockets -------------------------------------------------------------------------
# (Each section below runs when ATTACK_ONLY wants one of its attacks: `if wanted …`; its body is
# left unindented.)
echo "attack: programs from $bin"
if wanted wire; then
[ "${ATTACK_SMALL:-0}" = "1" ] && export WORKFEED_ATTACK_SMALL=1
"$bin/workfeed-bench" --only attack > "$work/wire.log" 2>&1
cat "$work/wire.log" | grep '^attack '
counts=$(grep '^attack (wire):' "$work/wire.log" | sed -E 's/.*: ([0-9]+) tried, ([0-9]+) held, ([0-9]+) broke.*, ([0-9]+) skipped/\1 \2 \3 \4/')
if [ -n "$counts" ]; then
  read -r t h b s <<<"$counts"
  tried=$((tried + t)); held=$((held + h)); broke=$((broke + b)); skipped=$((skipped + s))
  [ "$b" -gt 0 ] && broken+=("$(grep '^attack (wire):' "$work/wire.log" | sed -E 's/.*broke \((.*)\).*/\1/')")
else
  verdict wire broke "workfeed-bench --only attack did not finish: $(tail -3 "$work/wire.log" | tr '\n' ' ')"
fi
fi # wire

# --- 2. Addresses and the index --------------------------------------------------------------------
if wanted bypass-address second-coordinator damaged-index empty-index; then
coordinator() { # INDEX [VAR=VALUE...]: becomes a coordinator on free loopback ports (call it in a subshell: $(…) or &)
  local index=$1
  shift
  exec env WORKFEED_LISTEN_WORKERS='tcp://127.0.0.1:*' WORKFEED_LISTEN_CONTROL='tcp://127.0.0.1:*' WORKFEED_LISTEN_EVENTS='tcp://127.0.0.1:*' \
    WORKFEED_METRICS_LISTEN='' WORKFEED_CACHE_DIRECTORY="$work/cache" "$@" "$bin/workfeed-coordinator" --index "$index"
}

can_unshare_net=0
unshare -n true 2>/dev/null && can_unshare_net=1
[ "$can_unshare_net" = 0 ] && unshare -rn true 2>/dev/null && can_unshare_net=2
in_own_network() { if [ "$can_unshare_net" = 1 ]; then unshare -n "$@"; else unshare -rn "$@"; fi; }

for case in "WORKFEED_LISTEN_CONTROL=tcp://127.0.0.1:0;0.0.0.0:5555|listen.control|one HOST:PORT" \
  "WORKFEED_LISTEN_WORKERS=tcp://0.0.0.0:5555|listen.workers|loopback only" \
  "WORKFEED_METRICS_LISTEN=0.0.0.0:9464|metrics.listen|metrics.allow_remote"; do
  IFS='|' read -r setting key expected <<<"$case"
  echo "attack bypass-address: tried to start a coordinator without keys with $setting"
  if [ "$can_unshare_net" = 0 ]; then
    verdict bypass-address skipped "no network namespace here (needs root or user namespaces)"
    continue
  fi
  output=$(in_own_network env "$setting" "$bin/workfeed-coordinator" --index "$work/bypass/index.sqlite" 2>&1)
  status=$?
  if [ $status -eq 78 ] && grep -q "$key" <<<"$output" && grep -q "$expected" <<<"$output"; then
    verdict bypass-address held "exit 78: ${output:0:220}"
  else
    verdict bypass-address broke "exit $status: ${output:0:300}"
  fi
done

echo "attack second-coordinator: tried to start a second coordinator on an index another one has open"
mkdir -p "$work/index"
coordinator "$work/index/index.sqlite" >"$work/first.log" 2>&1 &
first=$!
pids+=("$first")
for _ in $(seq 1 200); do grep -q "coordinator listening" "$work/first.log" && break; sleep 0.05; done
control=$(sed -nE 's/.*control=(tcp:[^ ]*).*coordinator listening.*/\1/p' "$work/first.log" | head -1)
refused_start() { # NAME INDEX EXIT EXPECTED-TEXT: a coordinator on INDEX must exit EXIT saying EXPECTED-TEXT
  local output status
  output=$(coordinator "$2" 2>&1)
  status=$?
  if [ $status -eq "$3" ] && grep -q "$4" <<<"$output"; then
    verdict "$1" held "exit $3: $(grep -o "$4.*" <<<"$output" | head -1 | cut -c1-200)"
  else
    verdict "$1" broke "exit $status: ${output:0:300}"
  fi
}
refused_start second-coordinator "$work/index/index.sqlite" 75 "another coordinator (process $first)"

echo "attack damaged-index: tried to start a coordinator on an index with garbage written into its middle"
if [ -n "$control" ]; then
  "$bin/workctl" import --coordinator "$control" deploy/samples >/dev/null 2>&1
  "$bin/workctl" enqueue --coordinator "$control" --all --kind route,heatmap --theme light,dark >/dev/null 2>&1
fi
kill -TERM "$first" 2>/dev/null
wait "$first" 2>/dev/null
size=$(stat -c %s "$work/index/index.sqlite" 2>/dev/null || echo 0)
if [ "$size" -gt 16384 ]; then
  head -c 12288 /dev/urandom | dd of="$work/index/index.sqlite" bs=1 seek=$((size / 2 - 6144)) conv=notrunc 2>/dev/null
  refused_start damaged-index "$work/index/index.sqlite" 65 "is damaged"
else
  verdict damaged-index broke "no index of $size bytes was made to damage: $(tail -3 "$work/first.log" | tr '\n' ' ')"
fi

echo "attack empty-index: tried to start a coordinator on an index file of 0 bytes"
mkdir -p "$work/empty"
: >"$work/empty/index.sqlite"
refused_start empty-index "$work/empty/index.sqlite" 65 "is empty (0 bytes)"
[ -s "$work/empty/index.sqlite" ] && verdict empty-index-untouched broke "the empty file was written to"

fi # addresses and the index

# --- 3. The full disk --------------------------------------------------------------------------------
if ! wanted full-disk; then
  :
elif [ "${ATTACK_SMALL:-0}" = "1" ]; then
  echo "attack full-disk: not in the small form (the test suite runs FullCacheTests on its own)"
else
  routes=${ATTACK_FULL_CACHE_ROUTES:-150}
  echo "attack full-disk: tried a bulk render of $((routes * 4)) jobs by two worker processes whose cache (a tmpfs) fills up a fifth of the way, then is freed"
  WORKFEED_BIN_DIR="$bin" WORKFEED_FULL_CACHE_ROUTES=$routes swift test --skip-build --scratch-path "$scratch" \
    --filter 'ChaosTests.FullCacheTests/aCacheThatFillsUpAndIsFreedLosesNoPicture' >"$work/full.log" 2>&1
  status=$?
  grep '^full cache:' "$work/full.log" | sed 's/^/  /'
  if [ $status -eq 0 ] && grep -q "passed" "$work/full.log"; then
    verdict full-disk held "$(grep '^full cache: [0-9]* jobs' "$work/full.log" | sed 's/^full cache: //')"
  elif grep -q "cannot mount a small tmpfs" "$work/full.log"; then
    verdict full-disk skipped "no mount namespace here (needs root or user namespaces)"
  else
    verdict full-disk broke "$(grep -E 'Expectation failed|error|failed' "$work/full.log" | head -3 | tr '\n' ' ' | cut -c1-400)"
  fi
fi

# --- 4. The gateway's edge (issue 23, findings 2, 5 and 8) -----------------------------------------
# A paused coordinator (SIGSTOP), with the real programs: requests answered 503 meanwhile sit in
# its socket's queue, and must not be carried out when it is resumed.
if wanted paused-coordinator; then
echo "attack paused-coordinator: tried a zone add and a zone delete through the gateway while the coordinator was stopped (SIGSTOP), then resumed it, and the retries"
mkdir -p "$work/paused/cache"
paused_control="tcp://127.0.0.1:$(port)" paused_events="tcp://127.0.0.1:$(port)" paused_http=$(port)
WORKFEED_METRICS_LISTEN="" "$bin/workfeed-coordinator" --index "$work/paused/index.sqlite" --cache "$work/paused/cache" \
  --listen-workers "tcp://127.0.0.1:$(port)" --listen-control "$paused_control" --listen-events "$paused_events" \
  >"$work/paused/coordinator.log" 2>&1 &
paused=$!
pids+=("$paused")
"$bin/workctl" token secret --out "$work/paused/token.secret" >/dev/null
WORKFEED_TOKENS_SECRET_FILE="$work/paused/token.secret" WORKFEED_COORDINATOR_TIMEOUT_MS=1000 "$bin/workfeed-gateway" \
  --listen "127.0.0.1:$paused_http" --coordinator "$paused_control" --events "$paused_events" --cache "$work/paused/cache" \
  >"$work/paused/gateway.log" 2>&1 &
pids+=($!)
paused_base="http://127.0.0.1:$paused_http"
for _ in $(seq 1 100); do curl -fsS "$paused_base/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
call() { # TOKEN METHOD PATH [BODY]: prints the status, then the body
  curl -sS -w '\n%{http_code}\n' -X "$2" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' ${4:+--data "$4"} \
    "$paused_base$3" | tac
}
status() { call "$@" | head -1; }
trials=${ATTACK_LATE_503_TRIALS:-50}
[ "${ATTACK_SMALL:-0}" = "1" ] && trials=${ATTACK_LATE_503_TRIALS:-3}
paused_held=0 paused_first=""
for trial in $(seq 1 "$trials"); do
  token="$("$bin/workctl" token create --owner "owner-$trial" --expires 1h --secret-file "$work/paused/token.secret")"
  kept=$(call "$token" POST /v1/zones '{"latitude": 10, "longitude": 10, "radius": 300}' | tail -n +2 | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' 2>/dev/null)
  kill -STOP "$paused"
  late_add=$(status "$token" POST /v1/zones '{"latitude": 20, "longitude": 20, "radius": 300}')
  late_delete=$(status "$token" DELETE "/v1/zones/$kept")
  kill -CONT "$paused"
  for _ in $(seq 1 50); do curl -fsS "$paused_base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 1
  after=$(call "$token" GET /v1/zones | tail -n +2 | python3 -c 'import json, sys; print([z["id"] for z in json.load(sys.stdin)["zones"]])' 2>/dev/null)
  retried_add=$(status "$token" POST /v1/zones '{"latitude": 20, "longitude": 20, "radius": 300}')
  retried_delete=$(status "$token" DELETE "/v1/zones/$kept")
  count=$(call "$token" GET /v1/zones | tail -n +2 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["zones"]))' 2>/dev/null)
  what="while stopped: add $late_add, delete $late_delete; after resuming: zones $after (kept $kept); retried add $retried_add, delete $retried_delete; $count zone(s) at the end"
  if [ -n "$kept" ] && [ "$late_add" = 503 ] && [ "$late_delete" = 503 ] && [ "$after" = "[$kept]" ] \
    && [ "$retried_add" = 201 ] && [ "$retried_delete" = 204 ] && [ "$count" = 1 ]; then
    paused_held=$((paused_held + 1))
  elif [ -z "$paused_first" ]; then
    paused_first="trial $trial: $what"
  fi
done
if [ "$paused_held" = "$trials" ]; then
  verdict paused-coordinator held "$trials trials, each: add and delete 503 while stopped, neither carried out after resuming, the retries 201 and 204, one zone"
else
  verdict paused-coordinator broke "$paused_held of $trials trials held; first that broke: $paused_first"
fi
fi # paused-coordinator

# Each runs one of GatewayTests (EdgeTests, LimitsTests, S3SystemTests): a real coordinator and gateway (in one
# process), real HTTP, real ZeroMQ, a real cache directory or a real S3-compatible server (moto,
# var/test-python, with a server answering SlowDown in front of its port for the bucket's faults).
edge_names="cache-link late-503 out-of-range-upload claimed-body polar-zone endpoint-in-503 missing-headers empty-picture-name"
edge_names+=" slow-body slow-head uploads-at-once planted-large-picture redirect-gone bucket-slowdown"
# shellcheck disable=SC2086 # the names, one word each
if ! wanted gateway-edge $edge_names; then
  :
elif [ "${ATTACK_SMALL:-0}" = "1" ]; then
  echo "attack gateway-edge: not in the small form (the test suite runs GatewayTests.EdgeTests on its own)"
else
  while read -r name test what; do
    wanted gateway-edge "$name" || continue
    echo "attack $name: tried $what"
    swift test --skip-build --scratch-path "$scratch" --filter "GatewayTests.$test" >"$work/$name.log" 2>&1
    status=$?
    if [ $status -eq 0 ] && grep -qE "Test run with [1-9][0-9]* tests? in .* passed" "$work/$name.log"; then
      verdict "$name" held "$what: answered as $test asserts"
    else
      verdict "$name" broke "exit $status: $(grep -E 'Expectation failed|error:|failed' "$work/$name.log" | head -3 | tr '\n' ' ' | cut -c1-400)"
    fi
  done <<'EDGE'
cache-link EdgeTests/aLinkPlantedInTheCacheIsNotServed links and hard links planted under keys/ to /etc/passwd, the token secret and the index
late-503 EdgeTests/aRequestAnswered503IsNotCarriedOutWhenTheCoordinatorReturns a zone add and a zone delete answered 503 while the coordinator was down, then retried once it was back
out-of-range-upload EdgeTests/aFileWithValuesOutOfRangeIs400 GPX files with times in 1850 and 2250 and a 2 KB name
claimed-body EdgeTests/aZoneBodyClaimedTooLargeIs413AtOnce a zone POST claiming a 1 GiB body and sending one byte
polar-zone EdgeTests/zonesAtThePolesAreRefused zones at latitudes 89, -89.9 and ±85.06
endpoint-in-503 EdgeTests/unavailableDetailsDoNotNameTheCoordinatorsEndpoint a feed call while the coordinator is down, looking for its endpoint in the answer
missing-headers EdgeTests/everyAnswerCarriesNosniffAndFrameAncestors the page, health, a 401, a 404 picture and an unknown path, looking for nosniff and frame-ancestors
empty-picture-name EdgeTests/picturesWithoutANameIsNotFound GET /v1/pictures/
slow-body EdgeTests/aBodyTrickledSlowlyIsCutOff a zone body sent a byte every 0.5 s with a 2 s idle timeout
slow-head EdgeTests/aHeadTrickledSlowlyIsCutOffAtItsDeadline a request head sent a byte every 0.25 s with a 30 s idle timeout
uploads-at-once LimitsTests/anOwnersUploadsAtOnceAreBoundedAndOthersGoAhead three uploads of one owner at once, two of them trickling, and another owner's meanwhile
planted-large-picture S3SystemTests/anObjectLargerThanAnyPictureIsRefusedNotServed an object one byte over the largest picture planted under a key in the bucket, read through the gateway
redirect-gone S3SystemTests/withRedirectThePageAllowsTheBucketAndGoneKeysAreNotRedirected with pictures.redirect, a picture withdrawn by a zone and one of a deleted workout asked for, and the page's policy read
bucket-slowdown S3SystemTests/aBucketThatFailsAnswers503AndLogsOnceASecond 42 picture reads from a bucket answering 503 SlowDown, then not answering
EDGE
fi

# --- 5. The bucket misbehaving (issue 37, items 1, 2 and 5) ------------------------------------------
# The real programs (a coordinator, a worker, a gateway) with `cache.directory: s3://…` on a moto
# server (var/test-python) reached through deploy/s3-fault-proxy.py, which answers S3's 503
# SlowDown, stalls or drops connections when told (its /__fault endpoint). Each attack has an owner
# of its own, and its workouts are made here: routes that start and end at the owner's "home".
s3_names="s3-deletes-slowdown s3-stall-replies s3-made-up-keys s3-drop"
s3="$work/s3"
s3_bucket=workfeed-attack

# s3_start: moto, the proxy, the bucket, then the programs through the proxy. Sets s3_base (the
# gateway), s3_proxy (the proxy's control URL), s3_moto (moto itself, to look into the bucket).
s3_start() {
  mkdir -p "$s3"
  local moto_port
  moto_port=$(port)
  var/test-python/bin/moto_server -H 127.0.0.1 -p "$moto_port" >"$s3/moto.log" 2>&1 &
  pids+=($!)
  s3_moto="http://127.0.0.1:$moto_port"
  python3 deploy/s3-fault-proxy.py --upstream "127.0.0.1:$moto_port" >"$s3/proxy.out" 2>"$s3/proxy.log" &
  pids+=($!)
  for _ in $(seq 1 150); do
    curl -s -o /dev/null "$s3_moto/" && grep -q listening "$s3/proxy.out" && break
    sleep 0.1
  done
  s3_proxy="http://127.0.0.1:$(sed -nE 's/.*listening on .*:([0-9]+)$/\1/p' "$s3/proxy.out")"
  curl -sf -X PUT "$s3_moto/$s3_bucket" >/dev/null || return 1
  # moto takes any key; these are MotoServer.credentials.
  printf '[default]\naws_access_key_id = workfeed-test\naws_secret_access_key = workfeed-test-secret\n' >"$s3/credentials"
  local control="tcp://127.0.0.1:$(port)" events="tcp://127.0.0.1:$(port)" workers="tcp://127.0.0.1:$(port)" http
  http=$(port)
  s3_base="http://127.0.0.1:$http"
  s3_control=$control
  local store=(WORKFEED_CACHE_DIRECTORY="s3://$s3_bucket/feed" WORKFEED_STORE_S3_ENDPOINT="$s3_proxy"
    WORKFEED_STORE_S3_CREDENTIALS_FILE="$s3/credentials" WORKFEED_STORE_S3_REGION=us-east-1 WORKFEED_METRICS_LISTEN="")
  env "${store[@]}" "$bin/workfeed-coordinator" --index "$s3/index.sqlite" \
    --listen-workers "$workers" --listen-control "$control" --listen-events "$events" >"$s3/coordinator.log" 2>&1 &
  s3_coordinator=$!
  pids+=($!)
  env "${store[@]}" "$bin/workfeed-worker" --connect "$workers" --threads 2 --name s3-worker >"$s3/worker.log" 2>&1 &
  s3_worker=$!
  pids+=($!)
  "$bin/workctl" token secret --out "$s3/token.secret" >/dev/null
  env "${store[@]}" WORKFEED_TOKENS_SECRET_FILE="$s3/token.secret" "$bin/workfeed-gateway" \
    --listen "127.0.0.1:$http" --coordinator "$control" --events "$events" >"$s3/gateway.log" 2>&1 &
  s3_gateway=$!
  pids+=($!)
  for _ in $(seq 1 150); do curl -fsS "$s3_base/readyz" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

s3_fault() { # FAULT [ONLY [RELEASE]]: what the proxy does from now on (deploy/s3-fault-proxy.py)
  curl -sf -X POST "$s3_proxy/__fault?fault=$1&only=${2:-all}&release=${3:-close}" >/dev/null
}
s3_counted() { # WHAT...: the requests the proxy counted as any of WHAT ("slowdown DELETE-OBJECTS")
  curl -sf "$s3_proxy/__fault" | python3 -c '
import json, sys
counts = json.load(sys.stdin)["counts"]
print(sum(counts.get(what, 0) for what in sys.argv[1:]))' "$@"
}
s3_token() { "$bin/workctl" token create --owner "$1" --expires 1h --secret-file "$s3/token.secret"; }
s3_call() { # TOKEN METHOD PATH [BODY]: prints the status, then the body (one line of JSON)
  curl -sS -m 30 -w '\n%{http_code}\n' -X "$2" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' ${4:+--data "$4"} \
    "$s3_base$3" | tac
}
s3_get() { # PATH: an anonymous GET: "STATUS SECONDS RETRY-AFTER" (- when there is none)
  curl -s -o /dev/null -m 30 -w '%{http_code} %{time_total} %header{retry-after}' "$s3_base$1" | awk '{print $1, $2, ($3 == "" ? "-" : $3)}'
}
s3_in_bucket() { # KEY...: how many of these cache keys the bucket still holds (keys/…/KEY.png)
  python3 - "$s3_moto/$s3_bucket" "$@" <<'PY'
import re, sys, urllib.request
bucket, keys = sys.argv[1], sys.argv[2:]
held = 0
for key in keys:
    listing = urllib.request.urlopen(f"{bucket}?list-type=2&prefix=feed/keys/{key[:2]}/{key}.png").read().decode()
    held += f"<Key>feed/keys/{key[:2]}/{key}.png</Key>" in listing
print(held)
PY
}
s3_waiting() { # the removals `workctl status` says wait (0 when it says none)
  "$bin/workctl" status --coordinator "$s3_control" 2>/dev/null | sed -nE 's/^removals waiting: ([0-9,]+).*/\1/p' | tr -d , | grep . || echo 0
}
s3_alive() { # whether the coordinator, the worker and the gateway still run
  kill -0 "$s3_coordinator" 2>/dev/null && kill -0 "$s3_worker" 2>/dev/null && kill -0 "$s3_gateway" 2>/dev/null
}

# s3_routes DIR COUNT LAT LON SEED: COUNT GPX runs with heart rate, each leaving from LAT,LON and
# coming back (about 3 km out), two minutes apart on the same day.
s3_routes() {
  mkdir -p "$1"
  python3 - "$@" <<'PY'
import math, random, sys
from datetime import datetime, timedelta
out, count, lat0, lon0, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
for n in range(count):
    heading, lat, lon, rows = rng.uniform(0, 2 * math.pi), lat0, lon0, []
    start = datetime(2026, 3, 1, 7) + timedelta(days=seed % 20, minutes=10 * n)
    for i in range(160):
        if i == 80:
            heading += math.pi  # back home
        heading += rng.gauss(0, 0.15)
        if i > 0:
            lat += 0.00018 * math.cos(heading)
            lon += 0.00027 * math.sin(heading)
        if i == 159:
            lat, lon = lat0, lon0
        time = (start + timedelta(seconds=5 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        rows.append(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><time>{time}</time><extensions><gpxtpx:TrackPointExtension>'
                    f'<gpxtpx:hr>{120 + i % 40}</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>')
    with open(f"{out}/run-{seed}-{n}.gpx", "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="workfeed attack" '
                'xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">'
                f'<trk><name>attack {seed} {n}</name><type>running</type><trkseg>{"".join(rows)}</trkseg></trk></gpx>\n')
PY
}

# s3_upload TOKEN FILE...: uploads each through the gateway; prints the workout ids.
s3_upload() {
  local token=$1 file
  shift
  for file in "$@"; do
    curl -sS -m 60 -H "Authorization: Bearer $token" --data-binary @"$file" "$s3_base/v1/workouts?filename=$(basename "$file")" |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["workouts"][0]["workout"]["id"])' 2>/dev/null
  done
}

# s3_pictures TOKEN ID...: asks for each workout's route and heatmap, light and dark (as a feed
# row that became visible does), waiting until drawn; prints their URLs.
s3_pictures() {
  local token=$1 id kind theme url
  shift
  for id in "$@"; do
    for kind in route heatmap; do
      for theme in light dark; do
        for _ in $(seq 1 12); do
          url=$(s3_call "$token" GET "/v1/workouts/$id/pictures/$kind/$theme?wait=10" | tail -n +2 |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["picture"]["url"])' 2>/dev/null) && break
        done
        echo "$url"
      done
    done
  done
}
s3_key() { basename "$1" .png; }  # a picture URL's cache key

# s3-deletes-slowdown (item 1): a privacy zone withdraws pictures while the bucket throttles every
# delete; the old URLs must be 410 throughout (they were 200: the bucket still held them), and
# the removals must be done once the bucket answers (they were given up after 6 tries, ~16 s).
attack_s3_deletes_slowdown() {
  local seconds=${ATTACK_S3_SLOWDOWN_SECONDS:-20}
  [ "${ATTACK_SMALL:-0}" = "1" ] && seconds=${ATTACK_S3_SLOWDOWN_SECONDS:-6}
  echo "attack s3-deletes-slowdown: tried a privacy zone on the home of 2 runs (8 pictures drawn and read) while the bucket answered every delete 503 SlowDown for $seconds s, reading the old URLs throughout and after"
  local token ids urls url keys status statuses_during="" statuses_after="" held_during=0 in_bucket waiting_during=0 waiting refused
  token=$(s3_token home-owner)
  s3_routes "$s3/home" 2 49.41 8.69 11
  mapfile -t ids < <(s3_upload "$token" "$s3/home"/*.gpx)
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  for url in "${urls[@]}"; do status=$(s3_get "$url" | cut -d' ' -f1); [ "$status" = 200 ] || break; done
  if [ "${#urls[@]}" != 8 ] || [ "$status" != 200 ]; then
    verdict s3-deletes-slowdown broke "the scene was not set: ${#urls[@]} of 8 pictures drawn, the last read $status"
    return
  fi
  keys=()
  for url in "${urls[@]}"; do keys+=("$(s3_key "$url")"); done
  s3_fault slowdown deletes
  local zone started
  zone=$(s3_call "$token" POST /v1/zones '{"latitude": 49.41, "longitude": 8.69, "radius": 300}' | head -1)
  started=$(date +%s)
  while [ $(($(date +%s) - started)) -lt "$seconds" ]; do
    for url in "${urls[@]}"; do statuses_during+=" $(s3_get "$url" | cut -d' ' -f1)"; done
    waiting=$(s3_waiting)
    [ "$waiting" -gt "$waiting_during" ] && waiting_during=$waiting
    in_bucket=$(s3_in_bucket "${keys[@]}")
    [ "$in_bucket" -gt "$held_during" ] && held_during=$in_bucket
    sleep 0.5
  done
  refused=$(s3_counted "slowdown DELETE-OBJECTS" "slowdown DELETE")
  s3_fault pass
  # Tried again after 0.5 s, 1 s, 2 s, … at most 30 s apart: within a minute of the bucket answering.
  local left=${#keys[@]} waiting_after=-1 recovered=""
  for _ in $(seq 1 60); do
    for url in "${urls[@]}"; do statuses_after+=" $(s3_get "$url" | cut -d' ' -f1)"; done
    left=$(s3_in_bucket "${keys[@]}")
    waiting_after=$(s3_waiting)
    if [ "$left" = 0 ] && [ "$waiting_after" = 0 ]; then recovered="$(($(date +%s) - started - seconds)) s"; break; fi
    sleep 1
  done
  local during after
  during=$(tr ' ' '\n' <<<"$statuses_during" | grep . | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
  after=$(tr ' ' '\n' <<<"$statuses_after" | grep . | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
  local what="zone $zone; $refused deletes answered SlowDown; old URLs during: $during, after: $after; the bucket held $held_during of 8 old pictures meanwhile, $left at the end; workctl status: $waiting_during removals waiting during, $waiting_after after${recovered:+; done $recovered after the bucket answered}"
  if [ "$zone" = 201 ] && [ "$refused" -gt 0 ] && [[ "$during" =~ ^410\ x[0-9]+$ ]] && [[ "$after" =~ ^410\ x[0-9]+$ ]] \
    && [ "$held_during" -gt 0 ] && [ "$waiting_during" -gt 0 ] && [ -n "$recovered" ]; then
    verdict s3-deletes-slowdown held "$what"
  else
    verdict s3-deletes-slowdown broke "$what"
  fi
}

# shellcheck disable=SC2086 # the names, one word each
if wanted $s3_names; then
  echo "attack s3: the programs on an S3 bucket (moto) through deploy/s3-fault-proxy.py, which answers SlowDown, stalls or drops when told"
  if [ ! -x var/test-python/bin/moto_server ]; then
    for name in $s3_names; do
      wanted "$name" && verdict "$name" skipped "no var/test-python/bin/moto_server (deploy/install-test-deps.sh installs it; make test runs it)"
    done
  elif ! s3_start; then
    for name in $s3_names; do
      wanted "$name" && verdict "$name" broke "the programs did not start on the bucket: $(tail -2 "$s3"/*.log | tr '\n' ' ' | cut -c1-400)"
    done
  else
    wanted s3-deletes-slowdown && attack_s3_deletes_slowdown
    wanted s3-stall-replies && attack_s3_stall_replies
    wanted s3-made-up-keys && attack_s3_made_up_keys
    wanted s3-drop && attack_s3_drop
    s3_fault pass
    s3_alive || verdict s3-programs broke "a program on the bucket ended: $(tail -3 "$s3"/{coordinator,worker,gateway}.log | tr '\n' ' ' | cut -c1-400)"
  fi
fi

echo "attack: $tried tried, $held held, $broke broke${broken:+ (${broken[*]})}, $skipped skipped"
[ "$broke" -eq 0 ]
