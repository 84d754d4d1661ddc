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
#
# Settings, all optional:
#   ATTACK_SMALL=1            the smaller form the test suite runs (fewer jobs and messages; the
#                             timing criteria are printed, not judged; no full-disk run, which the
#                             suite runs on its own)
#   ATTACK_RELEASE=1          release builds of the programs
#   ATTACK_SKIP_BUILD=1       use what is built (WORKFEED_BIN_DIR, else SwiftPM's bin path)
#   ATTACK_FULL_CACHE_ROUTES  workouts for the full-disk run (150: 600 jobs)
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
for program in workfeed-coordinator workfeed-worker workctl workfeed-bench; do
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
verdict() { # NAME held|broke|skipped WHAT-HAPPENED
  tried=$((tried + 1))
  case "$2" in
  held) held=$((held + 1)); echo "attack $1: held: $3" ;;
  broke) broke=$((broke + 1)); broken+=("$1"); echo "attack $1: BROKE: $3" ;;
  *) skipped=$((skipped + 1)); echo "attack $1: skipped: $3" ;;
  esac
}

# --- 1. On the sockets -------------------------------------------------------------------------
echo "attack: programs from $bin"
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

# --- 2. Addresses and the index --------------------------------------------------------------------
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
refused_start() { # NAME INDEX EXPECTED-TEXT: a coordinator on INDEX must exit 69 saying EXPECTED-TEXT
  local output status
  output=$(coordinator "$2" 2>&1)
  status=$?
  if [ $status -eq 69 ] && grep -q "$3" <<<"$output"; then
    verdict "$1" held "exit 69: $(grep -o "$3.*" <<<"$output" | head -1 | cut -c1-200)"
  else
    verdict "$1" broke "exit $status: ${output:0:300}"
  fi
}
refused_start second-coordinator "$work/index/index.sqlite" "another coordinator (process $first)"

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
  refused_start damaged-index "$work/index/index.sqlite" "is damaged"
else
  verdict damaged-index broke "no index of $size bytes was made to damage: $(tail -3 "$work/first.log" | tr '\n' ' ')"
fi

echo "attack empty-index: tried to start a coordinator on an index file of 0 bytes"
mkdir -p "$work/empty"
: >"$work/empty/index.sqlite"
refused_start empty-index "$work/empty/index.sqlite" "is empty (0 bytes)"
[ -s "$work/empty/index.sqlite" ] && verdict empty-index-untouched broke "the empty file was written to"

# --- 3. The full disk --------------------------------------------------------------------------------
if [ "${ATTACK_SMALL:-0}" = "1" ]; then
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

echo "attack: $tried tried, $held held, $broke broke${broken:+ (${broken[*]})}, $skipped skipped"
[ "$broke" -eq 0 ]
