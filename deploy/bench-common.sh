# The set-up deploy/bench-gateway.sh and deploy/bench-feed.sh share (sourced, not run): the
# programs, a temporary directory removed at exit with every process started, free loopback
# ports, an index of generated workouts of owner 'bench', a coordinator, workers, a token and a
# gateway, and the wrk script that asks for a list of paths.
#
#   source deploy/bench-common.sh
#   bench_programs NAME BIN_OR_EMPTY PROGRAM...   # sets bin, build (a release build when BIN is empty)
#   bench_start NAME WORKOUTS WORKERS             # sets dir, control, cache, base, token, gateway_pid
#   bench_paths_lua FILE                          # wrk -s FILE with WRK_PATHS (and WRK_TOKEN when set)
#
# pids holds what was started; bench_port prints a free loopback port.

bench_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# bench_programs NAME BIN PROGRAM...: the programs from BIN (built already), or from a release
# build made now; each must be there.
bench_programs() {
  local name="$1" given="$2"
  shift 2
  if [ -n "$given" ]; then
    bin="$given"
    build="$(basename "$bin") build"
  else
    echo "$name: building (release)..."
    local product
    for product in "$@"; do swift build -c release --product "$product" >/dev/null; done
    bin="$(swift build -c release --show-bin-path)"
    build="release build"
  fi
  local program
  for program in "$@"; do
    [ -x "$bin/$program" ] || { echo "$name: $bin/$program is not built (swift build, or unset BENCH_BIN)" >&2; exit 1; }
  done
}

pids=()
bench_stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -z "${dir:-}" ] || rm -rf "$dir"
}

# bench_start NAME WORKOUTS WORKERS: everything in a new temporary directory (readable by others:
# nginx's workers read the cache), removed at exit with the processes.
bench_start() {
  local name="$1" workouts="$2" workers="$3"
  dir="$(mktemp -d "/tmp/workfeed-$name.XXXXXX")"
  chmod 755 "$dir"
  trap bench_stop_all EXIT
  local workers_port control_port events_port http_port n
  workers_port=$(bench_port); control_port=$(bench_port); events_port=$(bench_port); http_port=$(bench_port)
  control="tcp://127.0.0.1:$control_port"
  # BENCH_CACHE: another picture store (an s3:// URL, its endpoint and keys in the environment).
  cache="${BENCH_CACHE:-$dir/cache}"
  export WORKFEED_LOG_LEVEL=warning WORKFEED_METRICS_LISTEN="" WORKFEED_LISTEN_EVENTS="tcp://127.0.0.1:$events_port"

  echo "$name: an index of $workouts workouts of owner 'bench'"
  "$bin/workfeed-bench" --make-index "$dir/index.sqlite" --workouts "$workouts" --owner bench >/dev/null
  "$bin/workfeed-coordinator" --index "$dir/index.sqlite" --cache "$cache" --listen-workers "tcp://127.0.0.1:$workers_port" \
    --listen-control "$control" >"$dir/coordinator.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do "$bin/workctl" status --coordinator "$control" --timeout 1 >/dev/null 2>&1 && break; sleep 0.2; done
  for n in $(seq 1 "$workers"); do
    "$bin/workfeed-worker" --connect "tcp://127.0.0.1:$workers_port" --cache "$cache" --threads 1 --name "bench-$n" >"$dir/worker-$n.log" 2>&1 &
    pids+=($!)
  done
  "$bin/workctl" token secret --out "$dir/token.secret" >/dev/null
  token="$("$bin/workctl" token create --owner bench --expires 1d --secret-file "$dir/token.secret")"
  # One wrk process stands for many phones: the per-client bound on uncached picture reads
  # (pictures.reads_per_client, 8) would answer its first pass 429 (BENCH_READS_PER_CLIENT: the
  # bound a benchmark of it keeps).
  WORKFEED_PICTURES_READS_PER_CLIENT="${BENCH_READS_PER_CLIENT:-10000}" WORKFEED_TOKENS_SECRET_FILE="$dir/token.secret" "$bin/workfeed-gateway" --listen "127.0.0.1:$http_port" --coordinator "$control" \
    --events "tcp://127.0.0.1:$events_port" --cache "$cache" >"$dir/gateway.log" 2>&1 &
  gateway_pid=$!
  pids+=($!)
  base="http://127.0.0.1:$http_port"
  for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
}

# bench_paths_lua FILE: a wrk script asking for the paths in WRK_PATHS in turn, with
# `Authorization: Bearer WRK_TOKEN` when WRK_TOKEN is set and not empty.
bench_paths_lua() {
  cat >"$1" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local token = os.getenv("WRK_TOKEN")
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end
LUA
}
