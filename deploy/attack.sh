#!/usr/bin/env bash
# `make attack`: what issues 13, 23 and 37 found, tried again against the real programs on this
# machine, each attack printing what it tried and what happened, and a line of counts at the end.
# Exits 1 when any attack broke through. docs/security.md says what is defended and how.
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
#      503 must not be carried out when it resumes; paused-mid-upload: paused while uploads with an
#      Idempotency-Key are under way, each sent again: one workout each), and GatewayTests' EdgeTests, one case each
#      (links in the cache, a 503 carried out later, out-of-range uploads, claimed bodies, polar
#      zones, 503 details, headers, an empty picture name, a trickled head and body).
#   5. The bucket misbehaving (issue 37): a coordinator, a worker and a gateway with
#      `cache.directory: s3://workfeed-attack/feed` on moto (var/test-python), reached through
#      deploy/s3-fault-proxy.py, which answers 503 SlowDown, stalls or drops when told:
#        s3-deletes-slowdown    a zone withdraws 8 read pictures while every delete is SlowDown
#                               (20 s; 6 in the small form): the old URLs 410 throughout, never
#                               200; `workctl status` shows the removals waiting; once the bucket
#                               answers they are done and the bucket no longer holds the pictures
#        s3-zone-before-redraw  a zone while the worker is paused (SIGSTOP, 10 s; 3): the old URLs
#                               410 at once, not when the new pictures are drawn
#        s3-stall-replies       4 DELETEs (2) and 20 zone POSTs (6) of other owners at once while
#                               the bucket stalls deletes: each 204 or 201 within 5 s (the time not
#                               judged in the small form), what each answer said carried out, and
#                               the deleted workouts' pictures 404 meanwhile
#        s3-stall-index         the same while the bucket stalls every request (HEADs and GETs too)
#        s3-stall-upload        an upload while the bucket stalls, then 10 (3) other owners' zone
#                               POSTs: those 201 within 5 s, the upload 201, or 503 storing nothing
#        s3-made-up-keys        40 (10) made-up keys with the bucket stalling and 40 with it
#                               throttling: 404 within 2 s, none reaching the bucket; then real
#                               first views 200 during 10 s (3) of made-up keys from 16 (4)
#                               clients
#        s3-drop                the bucket closing every connection for 15 s (3): first views 503
#                               with Retry-After, a DELETE and an upload answered, nothing ends;
#                               then the reads 200, the upload drawn, the removals done
#        s3-foreign-prefix      a second coordinator with an empty index on the same prefix: it
#                               refuses to start (exit 78, the owner marker) or deletes nothing
#      Each prints how long it took. Without var/test-python/bin/moto_server they are skipped.
#
# Settings, all optional:
#   ATTACK_SMALL=1            the smaller form the test suite runs (fewer jobs and messages; the
#                             timing criteria are printed, not judged; no full-disk run, which the
#                             suite runs on its own)
#   ATTACK_RELEASE=1          release builds of the programs
#   ATTACK_SKIP_BUILD=1       use what is built (WORKFEED_BIN_DIR, else SwiftPM's bin path)
#   ATTACK_FULL_CACHE_ROUTES  workouts for the full-disk run (150: 600 jobs)
#   ATTACK_LATE_503_TRIALS    trials of the paused coordinator (50; 3 in the small form)
#   ATTACK_ONLY=a,b           only these attacks (their names as printed; `wire` is section 1's,
#                             `gateway-edge` every one of section 4's tests), e.g.
#                             ATTACK_ONLY=s3-deletes-slowdown,s3-drop
#   ATTACK_S3_SLOWDOWN_SECONDS, ATTACK_S3_REDRAW_SECONDS, ATTACK_S3_DROP_SECONDS  section 5's
#                             fault windows (20, 10, 15; small form 6, 3, 3)
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
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done  # reaped quietly (no "Killed" lines)
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

# Issue 37, item 2: the red team paused the coordinator while uploads were under way (13 of 15
# answered 503 were stored: an upload was three requests). Each trial uploads a new run with an
# Idempotency-Key, stops the coordinator 0 to 40 ms later for longer than the gateway waits, then
# sends the upload again with the same key: the owner must end with exactly that one workout and
# the retry must answer 201 `imported` as the first time would have. How many first answers were
# 503 yet stored is printed (the window deadlines leave, which the key covers).
echo "attack paused-mid-upload: tried uploads with an Idempotency-Key while the coordinator was stopped (SIGSTOP) 0 to 40 ms after each began, then each sent again with its key"
upload_trials=${ATTACK_MID_UPLOAD_TRIALS:-20}
[ "${ATTACK_SMALL:-0}" = "1" ] && upload_trials=${ATTACK_MID_UPLOAD_TRIALS:-4}
mid_line=$(BASE="$paused_base" PAUSED="$paused" TRIALS="$upload_trials" SECRET="$work/paused/token.secret" WORKCTL="$bin/workctl" python3 - <<'PYTHON'
import json, os, random, signal, subprocess, threading, time, urllib.error, urllib.request
base, paused, trials = os.environ["BASE"], int(os.environ["PAUSED"]), int(os.environ["TRIALS"])
rng = random.Random(37)
def gpx(trial):
    start = 1_700_000_000 + trial * 86_400
    points = "".join(
        '<trkpt lat="%.6f" lon="%.6f"><time>%s</time></trkpt>' % (49.40 + i * 1e-4, 8.69 + i * 1e-4, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + i * 5)))
        for i in range(200))
    return ('<?xml version="1.0"?><gpx version="1.1" creator="attack" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>%s</trkseg></trk></gpx>' % points).encode()
def upload(token, key, body):
    request = urllib.request.Request(base + "/v1/workouts?filename=run.gpx", data=body, method="POST",
        headers={"Authorization": "Bearer " + token, "Idempotency-Key": key, "Content-Type": "application/gpx+xml"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply: return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        try: return error.code, json.load(error)
        except Exception: return error.code, None
def feed(token):
    with urllib.request.urlopen(urllib.request.Request(base + "/v1/feed?limit=10", headers={"Authorization": "Bearer " + token}), timeout=30) as reply:
        return len(json.load(reply)["items"])
def ready():
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/readyz", timeout=2); return
        except Exception: time.sleep(0.1)
held, behind_503, firsts, broke = 0, 0, {}, ""
for trial in range(trials):
    token = subprocess.check_output([os.environ["WORKCTL"], "token", "create", "--owner", f"uploader-{trial}", "--expires", "1h",
                                     "--secret-file", os.environ["SECRET"]], text=True).strip()
    body, key = gpx(trial), f"attack-upload-{trial}"
    answer = {}
    thread = threading.Thread(target=lambda: answer.update(first=upload(token, key, body)))
    thread.start()
    time.sleep(rng.uniform(0, 0.04))
    os.kill(paused, signal.SIGSTOP)
    time.sleep(1.6)
    os.kill(paused, signal.SIGCONT)
    thread.join()
    ready()
    first = answer["first"][0]
    firsts[first] = firsts.get(first, 0) + 1
    stored_before = feed(token)
    if first == 503 and stored_before == 1: behind_503 += 1
    again, reply = upload(token, key, body)
    result = ((reply or {}).get("workouts") or [{}])[0].get("result")
    count = feed(token)
    if again == 201 and result == "imported" and count == 1:
        held += 1
    elif not broke:
        broke = f"trial {trial}: first {first}, stored {stored_before}, again {again} {result}, {count} workout(s) at the end"
print(f"{held} {trials} first answers {dict(sorted(firsts.items()))}; {behind_503} answered 503 yet stored, covered by the key" + (f"; {broke}" if broke else ""))
PYTHON
)
mid_held=${mid_line%% *}
if [ "$mid_held" = "$upload_trials" ]; then
  verdict paused-mid-upload held "$upload_trials trials, each: one workout, the retry with its key 201 imported; ${mid_line#* * }"
else
  verdict paused-mid-upload broke "${mid_line#* }"
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

# --- 5. The bucket misbehaving (issue 37, items 1, 2, 5 and 6) ---------------------------------------
# The real programs (a coordinator, a worker, a gateway) with `cache.directory: s3://…` on a moto
# server (var/test-python) reached through deploy/s3-fault-proxy.py, which answers S3's 503
# SlowDown, stalls or drops connections when told (its /__fault endpoint). The coordinator keeps
# the originals in the same bucket (`originals/`, beside an S3 cache), so they meet the faults too.
# Each attack has an owner of its own, and its workouts are made here: routes that start and end at
# the owner's "home".
s3_names="s3-deletes-slowdown s3-zone-before-redraw s3-stall-replies s3-stall-index s3-stall-upload s3-made-up-keys s3-drop s3-foreign-prefix"
s3="$work/s3"
s3_bucket=workfeed-attack
s3_moto_pid="" s3_proxy_pid="" s3_coordinator="" s3_worker="" s3_gateway=""

# s3_start: moto, the proxy, the bucket, then the programs through the proxy. Sets s3_base (the
# gateway), s3_proxy (the proxy, and its control endpoint), s3_moto (moto itself, to look into the
# bucket), s3_control (the coordinator's, for workctl), s3_store (the settings of every program).
s3_start() {
  mkdir -p "$s3"
  local moto_port
  moto_port=$(port)
  var/test-python/bin/moto_server -H 127.0.0.1 -p "$moto_port" >"$s3/moto.log" 2>&1 &
  s3_moto_pid=$!
  pids+=($!)
  s3_moto="http://127.0.0.1:$moto_port"
  python3 deploy/s3-fault-proxy.py --upstream "127.0.0.1:$moto_port" >"$s3/proxy.out" 2>"$s3/proxy.log" &
  s3_proxy_pid=$!
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
  s3_store=(WORKFEED_CACHE_DIRECTORY="s3://$s3_bucket/feed" WORKFEED_STORE_S3_ENDPOINT="$s3_proxy"
    WORKFEED_STORE_S3_CREDENTIALS_FILE="$s3/credentials" WORKFEED_STORE_S3_REGION=us-east-1 WORKFEED_METRICS_LISTEN="")
  env "${s3_store[@]}" "$bin/workfeed-coordinator" --index "$s3/index.sqlite" \
    --listen-workers "$workers" --listen-control "$control" --listen-events "$events" >"$s3/coordinator.log" 2>&1 &
  s3_coordinator=$!
  pids+=($!)
  env "${s3_store[@]}" "$bin/workfeed-worker" --connect "$workers" --threads 2 --name s3-worker >"$s3/worker.log" 2>&1 &
  s3_worker=$!
  pids+=($!)
  "$bin/workctl" token secret --out "$s3/token.secret" >/dev/null
  # The flooding clients of s3-made-up-keys are other clients than the one reading first views:
  # each names itself in X-Forwarded-For, which the gateway believes from loopback.
  env "${s3_store[@]}" WORKFEED_TOKENS_SECRET_FILE="$s3/token.secret" WORKFEED_HTTP_TRUSTED_PROXIES=127.0.0.1 "$bin/workfeed-gateway" \
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
s3_timed() { # OUT TOKEN METHOD PATH [CURL-ARGUMENT...]: writes "STATUS SECONDS" of the call to OUT
  local out=$1 token=$2 method=$3 path=$4
  shift 4
  curl -s -o /dev/null -m 20 -w '%{http_code} %{time_total}\n' -X "$method" -H "Authorization: Bearer $token" "$@" "$s3_base$path" >"$out"
}
s3_zones() { # TOKEN: how many privacy zones the owner has
  s3_call "$1" GET /v1/zones | tail -n +2 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["zones"]))' 2>/dev/null || echo 0
}
s3_get() { # PATH: an anonymous GET: "STATUS SECONDS RETRY-AFTER" (- when there is none)
  curl -s -o /dev/null -m 30 -w '%{http_code} %{time_total} %header{retry-after}' "$s3_base$1" | awk '{print $1, $2, ($3 == "" ? "-" : $3)}'
}
s3_objects() { # how many objects the bucket holds under feed/
  python3 - "$s3_moto/$s3_bucket" <<'PY'
import re, sys, urllib.parse, urllib.request
bucket, count, token = sys.argv[1], 0, None
while True:
    url = f"{bucket}?list-type=2&prefix=feed/" + (f"&continuation-token={urllib.parse.quote(token, safe='')}" if token else "")
    listing = urllib.request.urlopen(url).read().decode()
    count += len(re.findall(r"<Key>", listing))
    token = (re.findall(r"<NextContinuationToken>([^<]*)</NextContinuationToken>", listing) or [None])[0]
    if "<IsTruncated>true</IsTruncated>" not in listing or not token:
        break
print(count)
PY
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
s3_settle() { # waits (10 s at most) until the coordinator answers workctl status within a second
  for _ in $(seq 1 20); do "$bin/workctl" status --coordinator "$s3_control" --timeout 1 >/dev/null 2>&1 && return; sleep 0.5; done
}
s3_stop() { # stops the programs (SIGTERM: each must end by itself), then the proxy and moto
  local pid
  for pid in "$s3_gateway" "$s3_worker" "$s3_coordinator"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "$s3_gateway" "$s3_worker" "$s3_coordinator"; do wait "$pid" 2>/dev/null; done
  for pid in "$s3_proxy_pid" "$s3_moto_pid"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
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
s3_tally() { # WORDS: "410 x40, 200 x8": how often each word came
  tr -s ' ' '\n' <<<"$1" | grep . | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}'
}

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
  during=$(s3_tally "$statuses_during")
  after=$(s3_tally "$statuses_after")
  local what="zone $zone; $refused deletes answered SlowDown; old URLs during: $during, after: $after; the bucket held $held_during of 8 old pictures meanwhile, $left at the end; workctl status: $waiting_during removals waiting during, $waiting_after after${recovered:+; done $recovered after the bucket answered}"
  if [ "$zone" = 201 ] && [ "$refused" -gt 0 ] && [[ "$during" =~ ^410\ x[0-9]+$ ]] && [[ "$after" =~ ^410\ x[0-9]+$ ]] \
    && [ "$held_during" -gt 0 ] && [ "$waiting_during" -gt 0 ] && [ -n "$recovered" ]; then
    verdict s3-deletes-slowdown held "$what"
  else
    verdict s3-deletes-slowdown broke "$what"
  fi
}

# s3-zone-before-redraw (item 1): a privacy zone withdraws pictures that a gateway has read or
# answered a picture request with; the worker has not drawn the new ones yet (paused with SIGSTOP,
# as a long queue keeps it), and the bucket answers. The old URLs must be 410 at once: the index
# has withdrawn them, whatever the gateway remembers.
attack_s3_zone_before_redraw() {
  local seconds=${ATTACK_S3_REDRAW_SECONDS:-10}
  [ "${ATTACK_SMALL:-0}" = "1" ] && seconds=${ATTACK_S3_REDRAW_SECONDS:-3}
  echo "attack s3-zone-before-redraw: tried a privacy zone on the home of a run (4 pictures: 2 read, 2 only asked for) while the worker was paused for $seconds s, reading the old URLs meanwhile"
  local token ids urls url zone statuses="" started
  token=$(s3_token redraw-owner)
  s3_routes "$s3/redraw" 1 49.30 8.50 12
  mapfile -t ids < <(s3_upload "$token" "$s3/redraw"/*.gpx)
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  if [ "${#urls[@]}" != 4 ] || [ "$(s3_get "${urls[0]}" | cut -d' ' -f1)" != 200 ] || [ "$(s3_get "${urls[1]}" | cut -d' ' -f1)" != 200 ]; then
    verdict s3-zone-before-redraw broke "the scene was not set: ${#urls[@]} of 4 pictures drawn"
    return
  fi
  kill -STOP "$s3_worker"
  zone=$(s3_call "$token" POST /v1/zones '{"latitude": 49.30, "longitude": 8.50, "radius": 300}' | head -1)
  started=$(date +%s)
  while [ $(($(date +%s) - started)) -lt "$seconds" ]; do
    for url in "${urls[@]}"; do statuses+=" $(s3_get "$url" | cut -d' ' -f1)"; done
    sleep 0.5
  done
  kill -CONT "$s3_worker"
  local seen
  seen=$(s3_tally "$statuses")
  if [ "$zone" = 201 ] && [[ "$seen" =~ ^410\ x[0-9]+$ ]]; then
    verdict s3-zone-before-redraw held "zone $zone; old URLs while the new pictures were not drawn: $seen"
  else
    verdict s3-zone-before-redraw broke "zone $zone; old URLs while the new pictures were not drawn: $seen (200: the withdrawn picture served, from the gateway's memory or its keys known current, until the new ones are drawn)"
  fi
}

# s3-stall-replies and s3-stall-index (item 2): workouts are deleted and other owners add zones
# at the same time while the bucket reads requests and never answers them: only deletes (DELETE,
# DeleteObjects) for s3-stall-replies, every request for s3-stall-index (the HEADs and GETs the
# coordinator makes too). Each must be answered with its success in a few seconds (a stalled
# bucket held every reply of the batch: a DELETE answered 503 had been carried out, 4 of 4, and
# other owners' zone POSTs answered 503 had been stored, 3 of 20), and the deleted workouts'
# pictures must be 404 meanwhile, without a read of the bucket. What each answer stood for is
# looked at once the bucket answers again (the stalled requests then closed unanswered, or with
# ATTACK_S3_RELEASE=forward carried out late).
attack_s3_stall_replies() { s3_stall_batch s3-stall-replies deletes "deletes (DELETE, DeleteObjects)"; }
attack_s3_stall_index() { s3_stall_batch s3-stall-index all "every request"; }
s3_stall_batch() { # NAME ONLY WHAT: the attack NAME with the proxy stalling ONLY (its selector), WHAT in words
  local name=$1 only=$2 stalling=$3
  local deletes=4 posts=20
  [ "${ATTACK_SMALL:-0}" = "1" ] && deletes=2 posts=6
  echo "attack $name: tried $deletes workout DELETEs and $posts zone POSTs of $((posts / 2)) other owners at once while the bucket stalled $stalling (read them, never answered)"
  local token ids urls n
  token=$(s3_token "$name-owner")
  s3_routes "$s3/$name" "$deletes" 49.50 8.80 13
  mapfile -t ids < <(s3_upload "$token" "$s3/$name"/*.gpx)
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  for url in "${urls[@]}"; do s3_get "$url" >/dev/null; done
  if [ "${#urls[@]}" != $((deletes * 4)) ]; then
    verdict "$name" broke "the scene was not set: ${#urls[@]} of $((deletes * 4)) pictures drawn"
    return
  fi
  local tokens=()
  for n in $(seq 1 $((posts / 2))); do tokens+=("$(s3_token "$name-other-$n")"); done
  mkdir -p "$s3/$name/answers"
  local stalled_before stalling_what=("stall DELETE-OBJECTS" "stall DELETE" "stall HEAD" "stall GET" "stall PUT")
  stalled_before=$(s3_counted "${stalling_what[@]}")
  s3_fault stall "$only"
  # Every request at once, each writing "STATUS SECONDS" to a file of its own.
  local curls=()
  for n in "${!ids[@]}"; do
    s3_timed "$s3/$name/answers/delete-$n" "$token" DELETE "/v1/workouts/${ids[$n]}" &
    curls+=($!)
  done
  for n in $(seq 0 $((posts - 1))); do
    s3_timed "$s3/$name/answers/post-$n" "${tokens[$((n / 2))]}" POST /v1/zones -H 'Content-Type: application/json' \
      --data "{\"latitude\": 10.$n, \"longitude\": 20.$n, \"radius\": 300}" &
    curls+=($!)
  done
  wait "${curls[@]}"
  local gone="" slowest
  for url in "${urls[@]}"; do gone+=" $(s3_get "$url" | cut -d' ' -f1)"; done
  local deleted posted stalled
  deleted=$(cat "$s3/$name"/answers/delete-* | cut -d' ' -f1 | tr '\n' ' ')
  posted=$(cat "$s3/$name"/answers/post-* | cut -d' ' -f1 | tr '\n' ' ')
  slowest=$(cat "$s3/$name"/answers/* | sort -k2 -n | tail -1 | cut -d' ' -f2)
  stalled=$(($(s3_counted "${stalling_what[@]}") - stalled_before))
  s3_fault pass all "${ATTACK_S3_RELEASE:-close}"
  s3_settle
  # What a 503 or a timeout stood for: was it carried out after all (once the bucket answered)?
  local done_deletes=0 stored_zones=0
  for n in "${!ids[@]}"; do [ "$(s3_call "$token" GET "/v1/workouts/${ids[$n]}" | head -1)" = 404 ] && done_deletes=$((done_deletes + 1)); done
  for n in "${!tokens[@]}"; do
    stored_zones=$((stored_zones + $(s3_zones "${tokens[$n]}")))
  done
  local deleted_ok=1 posted_ok=1
  [[ "$(tr -s ' ' '\n' <<<"$deleted" | grep . | sort -u)" == 204 ]] || deleted_ok=0
  [[ "$(tr -s ' ' '\n' <<<"$posted" | grep . | sort -u)" == 201 ]] || posted_ok=0
  local what="DELETEs: $(s3_tally "$deleted") ($done_deletes carried out); zone POSTs: $(s3_tally "$posted") ($stored_zones stored); slowest answer ${slowest} s; $stalled requests stalled at the bucket; the deleted workouts' pictures then: $(s3_tally "$gone")"
  local timely=1
  python3 -c "import sys; sys.exit(0 if float('${slowest:-99}') <= 5 else 1)" || timely=0
  if [ "${ATTACK_SMALL:-0}" = "1" ] && [ "$timely" = 0 ]; then
    what+=" (over 5 s; timing not judged in the small form)"
    timely=1
  fi
  if [ "$deleted_ok" = 1 ] && [ "$posted_ok" = 1 ] && [ "$timely" = 1 ] && [ "$stalled" -gt 0 ] && [[ "$(s3_tally "$gone")" =~ ^404\ x[0-9]+$ ]] \
    && [ "$done_deletes" = "${#ids[@]}" ] && [ "$stored_zones" = "$posts" ]; then
    verdict "$name" held "$what"
  else
    verdict "$name" broke "$what"
  fi
}

# s3-stall-upload (item 2): an upload while the bucket stalls (its original is kept in the bucket
# beside the pictures), and other owners' zone POSTs a moment later. The others must be answered
# 201 in a few seconds; the upload 201, or 503 with nothing stored.
attack_s3_stall_upload() {
  local others=10
  [ "${ATTACK_SMALL:-0}" = "1" ] && others=3
  echo "attack s3-stall-upload: tried an upload while the bucket stalled, and zone POSTs of $others other owners half a second later"
  local token n tokens=() curls=()
  token=$(s3_token uploader)
  s3_routes "$s3/upload" 1 48.90 9.10 16
  for n in $(seq 1 "$others"); do tokens+=("$(s3_token "upload-other-$n")"); done
  mkdir -p "$s3/upload/answers"
  s3_fault stall
  s3_timed "$s3/upload/answers/upload" "$token" POST "/v1/workouts?filename=run.gpx" --data-binary @"$s3/upload/run-16-0.gpx" &
  curls+=($!)
  sleep 0.5
  for n in "${!tokens[@]}"; do
    s3_timed "$s3/upload/answers/post-$n" "${tokens[$n]}" POST /v1/zones -H 'Content-Type: application/json' \
      --data '{"latitude": 30, "longitude": 30, "radius": 300}' &
    curls+=($!)
  done
  wait "${curls[@]}"
  s3_fault pass
  s3_settle
  local uploaded posted slowest stored stored_zones=0
  uploaded=$(cut -d' ' -f1 "$s3/upload/answers/upload")
  posted=$(cat "$s3"/upload/answers/post-* | cut -d' ' -f1 | tr '\n' ' ')
  slowest=$(cat "$s3"/upload/answers/post-* | sort -k2 -n | tail -1 | cut -d' ' -f2)
  stored=$(s3_call "$token" GET /v1/feed | tail -n +2 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["items"]))' 2>/dev/null)
  for n in "${!tokens[@]}"; do
    stored_zones=$((stored_zones + $(s3_zones "${tokens[$n]}")))
  done
  local what="upload $(cut -d' ' -f1,2 "$s3/upload/answers/upload") s (${stored:-?} workout stored); zone POSTs: $(s3_tally "$posted") ($stored_zones stored), the slowest in $slowest s"
  local timely=1
  python3 -c "import sys; sys.exit(0 if float('${slowest:-99}') <= 5 else 1)" || timely=0
  if [ "${ATTACK_SMALL:-0}" = "1" ] && [ "$timely" = 0 ]; then
    what+=" (over 5 s; timing not judged in the small form)"
    timely=1
  fi
  if [ "$(s3_tally "$posted")" = "201 x$others" ] && [ "$stored_zones" = "$others" ] && [ "$timely" = 1 ] \
    && { [ "$uploaded/$stored" = 201/1 ] || [ "$uploaded/$stored" = 503/0 ]; }; then
    verdict s3-stall-upload held "$what"
  else
    verdict s3-stall-upload broke "$what"
  fi
}

# s3-made-up-keys (item 5): keys the index does not know are answered without a bucket round
# trip: with the bucket stalling, then throttling, made-up keys are 404 at once and never reach
# it; with it answering, a flood of made-up keys from other clients does not hold real first views.
s3_made_up() { # BASE COUNT: GETs of COUNT made-up keys from BASE (hex) on, as s3_get prints them;
  # stops after 3 answers slower than 2 s (a bucket round trip each: broken, and 10 s a key)
  local n answer slow=0
  for n in $(seq 1 "$2"); do
    answer=$(s3_get "/v1/pictures/$(printf '%064x' $((0x$1 + n))).png")
    echo -n " $answer"
    awk '{exit !($2 > 2)}' <<<"$answer" && slow=$((slow + 1))
    [ "$slow" -ge 3 ] && break
  done
}
attack_s3_made_up_keys() {
  local count=40 flood_seconds=10 clients=16
  [ "${ATTACK_SMALL:-0}" = "1" ] && count=10 flood_seconds=3 clients=4
  echo "attack s3-made-up-keys: tried $count made-up keys with the bucket stalling and $count with it answering SlowDown, then real first views during ${flood_seconds} s of made-up keys from $clients clients at once"
  local token ids urls url n statuses_stall statuses_slow reached
  token=$(s3_token viewer)
  s3_routes "$s3/viewer" 3 49.60 8.40 14
  mapfile -t ids < <(s3_upload "$token" "$s3/viewer"/*.gpx)
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  s3_fault stall GET,HEAD
  statuses_stall=$(s3_made_up dead0000 "$count")
  s3_fault slowdown GET,HEAD
  statuses_slow=$(s3_made_up beef0000 "$count")
  s3_fault pass
  reached=$(grep -cE '0{50}(dead|beef)' "$s3/proxy.log")
  local stall_codes slow_codes worst
  stall_codes=$(s3_tally "$(awk '{for (i = 1; i <= NF; i += 3) print $i}' <<<"$statuses_stall")")
  slow_codes=$(s3_tally "$(awk '{for (i = 1; i <= NF; i += 3) print $i}' <<<"$statuses_slow")")
  worst=$(awk '{for (i = 2; i <= NF; i += 3) print $i}' <<<"$statuses_stall $statuses_slow" | sort -n | tail -1)
  # The flood: clients asking for made-up keys as fast as they can, while the first views go.
  local flood=()
  # Each client ends by itself a few seconds after the flood's time, and writes nothing where the
  # script's output goes: should this script be killed meanwhile (AttackTests' timeout), none
  # is left running, and none holds the output that the test reads to its end.
  local flood_until=$(($(date +%s) + flood_seconds + 5))
  for n in $(seq 1 "$clients"); do
    (m=0
    while [ "$(date +%s)" -lt "$flood_until" ]; do
      m=$((m + 1))
      curl -s -o /dev/null -m 5 -H "X-Forwarded-For: 198.51.100.$n" "$s3_base/v1/pictures/$(printf '%08x%056x' "$n" "$m").png"
    done) >/dev/null 2>&1 </dev/null &
    flood+=($!)
    pids+=($!)
  done
  sleep 1
  local views="" view_started
  view_started=$(date +%s)
  for url in "${urls[@]}"; do
    views+=" $(s3_get "$url")"
    [ $(($(date +%s) - view_started)) -ge "$flood_seconds" ] && break
  done
  while [ $(($(date +%s) - view_started)) -lt "$flood_seconds" ]; do sleep 0.2; done
  for n in "${flood[@]}"; do kill -KILL "$n" 2>/dev/null; wait "$n" 2>/dev/null; done
  local view_codes view_times
  view_codes=$(s3_tally "$(awk '{for (i = 1; i <= NF; i += 3) print $i}' <<<"$views")")
  view_times=$(awk '{for (i = 2; i <= NF; i += 3) print $i}' <<<"$views" | sort -n | awk '{t[NR] = $1} END {printf "median %.3f s, max %.3f s", t[int((NR + 1) / 2)], t[NR]}')
  local what="made-up keys with the bucket stalling: $stall_codes, with it throttling: $slow_codes, the slowest in $worst s, $reached of them reached the bucket; first views during the flood: $view_codes, $view_times"
  local timely=1
  python3 -c "import sys; sys.exit(0 if float('${worst:-99}') <= 2 else 1)" || timely=0
  if [ "$stall_codes" = "404 x$count" ] && [ "$slow_codes" = "404 x$count" ] && [ "$timely" = 1 ] && [ "$reached" = 0 ] \
    && [[ "$view_codes" =~ ^200\ x[0-9]+$ ]]; then
    verdict s3-made-up-keys held "$what"
  else
    verdict s3-made-up-keys broke "$what"
  fi
}

# s3-drop: the bucket closes every connection once it has read the request. Picture reads are 503
# with Retry-After (a failing store is not a 500), a DELETE and an upload are answered, nothing
# ends, and once the bucket answers again the pictures are served, the upload is drawn and the
# removals are done.
attack_s3_drop() {
  local seconds=${ATTACK_S3_DROP_SECONDS:-15}
  [ "${ATTACK_SMALL:-0}" = "1" ] && seconds=${ATTACK_S3_DROP_SECONDS:-3}
  echo "attack s3-drop: tried picture reads, a DELETE and an upload while the bucket dropped every connection for at least $seconds s, then the bucket answering again"
  local token ids urls url reads="" started upload_id deleted keys=()
  token=$(s3_token dropper)
  s3_routes "$s3/drop" 3 49.20 8.30 15
  mapfile -t ids < <(s3_upload "$token" "$s3/drop/run-15-0.gpx" "$s3/drop/run-15-1.gpx")
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  if [ "${#urls[@]}" != 8 ]; then
    verdict s3-drop broke "the scene was not set: ${#urls[@]} of 8 pictures drawn"
    return
  fi
  for url in "${urls[@]:4}"; do keys+=("$(s3_key "$url")"); done
  s3_fault drop
  started=$(date +%s)
  for url in "${urls[@]:0:4}"; do reads+=" $(s3_get "$url")"; done
  deleted=$(s3_call "$token" DELETE "/v1/workouts/${ids[1]}" | head -1)
  upload_id=$(s3_upload "$token" "$s3/drop/run-15-2.gpx")
  while [ $(($(date +%s) - started)) -lt "$seconds" ]; do sleep 0.5; done
  local dropped alive_during=yes ready
  dropped=$(s3_counted "drop GET" "drop PUT" "drop DELETE-OBJECTS" "drop DELETE" "drop HEAD")
  s3_alive || alive_during=no
  ready=$(curl -s -o /dev/null -w '%{http_code}' "$s3_base/readyz")
  s3_fault pass
  local after="" recovered="" drawn="" left=-1 waiting=-1
  for _ in $(seq 1 60); do
    after=""
    for url in "${urls[@]:0:4}"; do after+=" $(s3_get "$url" | cut -d' ' -f1)"; done
    drawn=$(s3_call "$token" GET "/v1/workouts/$upload_id/pictures/route/light?wait=2" | head -1)
    left=$(s3_in_bucket "${keys[@]}")
    waiting=$(s3_waiting)
    if [ "$(s3_tally "$after")" = "200 x4" ] && [ "$drawn" = 200 ] && [ "$left" = 0 ] && [ "$waiting" = 0 ]; then
      recovered="$(($(date +%s) - started - seconds)) s"
      break
    fi
    sleep 1
  done
  local codes retry
  codes=$(s3_tally "$(awk '{for (i = 1; i <= NF; i += 3) print $i}' <<<"$reads")")
  retry=$(awk '{for (i = 3; i <= NF; i += 3) print $i}' <<<"$reads" | sort -u | tr '\n' ' ')
  local what="$dropped requests dropped; first views while dropped: $codes, Retry-After ${retry% }; DELETE $deleted, upload $([ -n "$upload_id" ] && echo stored || echo "not stored"); /readyz $ready; programs running: $alive_during; after: reads $(s3_tally "$after"), the upload's picture $drawn, $left of 4 deleted pictures in the bucket, $waiting removals waiting${recovered:+; all back $recovered after the bucket answered}"
  if [ "$codes" = "503 x4" ] && [ "${retry% }" != "-" ] && [ -n "${retry% }" ] && [ "$deleted" = 204 ] && [ -n "$upload_id" ] \
    && [ "$alive_during" = yes ] && [ "$dropped" -gt 0 ] && [ -n "$recovered" ]; then
    verdict s3-drop held "$what"
  else
    verdict s3-drop broke "$what"
  fi
}

# s3-foreign-prefix (item 6): a second coordinator with an empty index of its own, pointed at the
# prefix the first one fills. It must not delete that deployment's pictures (one such deleted at
# start every picture it did not know): it refuses to start, naming the owner marker, or starts
# and removes nothing.
attack_s3_foreign_prefix() {
  echo "attack s3-foreign-prefix: tried a second coordinator with an empty index on the prefix the first one fills, for 8 s at most"
  local token ids urls before after status said served
  token=$(s3_token foreign-victim)
  s3_routes "$s3/foreign" 1 48.70 9.30 17
  mapfile -t ids < <(s3_upload "$token" "$s3/foreign"/*.gpx)
  mapfile -t urls < <(s3_pictures "$token" "${ids[@]}" | grep .)
  before=$(s3_objects)
  env "${s3_store[@]}" timeout 8 "$bin/workfeed-coordinator" --index "$s3/foreign/index.sqlite" --listen-workers "tcp://127.0.0.1:$(port)" \
    --listen-control "tcp://127.0.0.1:$(port)" --listen-events "tcp://127.0.0.1:$(port)" >"$s3/foreign/coordinator.log" 2>&1
  status=$?
  after=$(s3_objects)
  served=$(for url in "${urls[@]}"; do s3_get "$url" | cut -d' ' -f1; done | tr '\n' ' ')
  said=$(grep -o 'cannot start: .*' "$s3/foreign/coordinator.log" | head -1 | cut -c1-240)
  local what="exit $status${said:+: $said}; the bucket held $before objects before, $after after; the first one's pictures: $(s3_tally "$served")"
  if [ "${#urls[@]}" = 4 ] && [ "$after" -ge "$before" ] && [ "$(s3_tally "$served")" = "200 x4" ] && { [ "$status" = 124 ] || { [ "$status" = 78 ] && [ -n "$said" ]; }; }; then
    verdict s3-foreign-prefix held "$what"
  else
    verdict s3-foreign-prefix broke "$what"
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
    for name in $s3_names; do
      wanted "$name" || continue
      started=$SECONDS
      "attack_${name//-/_}"
      echo "  ($name took $((SECONDS - started)) s)"
    done
    s3_fault pass
    s3_alive || verdict s3-programs broke "a program on the bucket ended: $(tail -3 "$s3"/{coordinator,worker,gateway}.log | tr '\n' ' ' | cut -c1-400)"
  fi
  s3_stop
fi

echo "attack: $tried tried, $held held, $broke broke${broken:+ (${broken[*]})}, $skipped skipped"
[ "$broke" -eq 0 ]
