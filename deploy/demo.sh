#!/usr/bin/env bash
# The whole path on one machine, on the embedded defaults: builds, starts a coordinator and two
# workers on loopback (index and cache under ./var) drawing maps from the committed tilesets
# (deploy/basemap), imports the demo's sample workouts (DEMO_WORKOUTS below), renders every route
# picture and heatmap in both themes with progress, prints a summary, writes var/demo/index.html,
# then starts the gateway and prints the feed page's address (with a token for the samples' owner)
# and serves it until Ctrl-C; then it stops what it started.
#
# It builds each program with its own log (var/demo-build-<program>.log), saying which and the
# time so far; it refuses to start when a port it would bind is taken (naming the port, what holds
# it and the variable that moves it), and it reports a part up only once that part's own process
# listens on its ports and answers.
#
# Ports, all on 127.0.0.1, and the variables that move them:
#   WORKFEED_DEMO_WORKERS_PORT  5555  the coordinator's worker endpoint (listen.workers)
#   WORKFEED_DEMO_CONTROL_PORT  5556  the coordinator's control endpoint (listen.control)
#   WORKFEED_DEMO_EVENTS_PORT   5557  the coordinator's event stream (listen.events)
#   WORKFEED_DEMO_METRICS_PORT  9464  the coordinator's Prometheus metrics (metrics.listen); empty: off
#   WORKFEED_DEMO_PORT          8080  the gateway's HTTP (listen)
# The workers bind nothing (their metrics stay off). WORKFEED_DEMO_EXIT=1 stops right after
# printing the address. Run from the repository root: `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the demo imports: real recordings inside the committed tilesets, so that every picture it
# opens on shows a map (README, "What the demo shows"; deploy/samples/SOURCES.md and
# Tests/Data/SOURCES.md say where each comes from). The feed is newest first.
DEMO_WORKOUTS=(
  deploy/samples/runpandas_garmin-fr645m_run_2019_hr.fit
  deploy/samples/fitfiler_tomtom-runner3_ride_2021.fit
)
# The tilesets the coordinator's cache keys and the workers' maps come from, in the order to try
# (deploy/basemap/SOURCES.md).
DEMO_TILESETS=(deploy/basemap/heidelberg.mbtiles)

workers_port="${WORKFEED_DEMO_WORKERS_PORT:-5555}"
control_port="${WORKFEED_DEMO_CONTROL_PORT:-5556}"
events_port="${WORKFEED_DEMO_EVENTS_PORT:-5557}"
metrics_port="${WORKFEED_DEMO_METRICS_PORT-9464}"
port="${WORKFEED_DEMO_PORT:-8080}"

# --- Ports --------------------------------------------------------------------------------------

port_names=()
declare -A port_what port_variable
add_port() {
  local number="$1" what="$2" variable="$3"
  if ! [[ "$number" =~ ^[0-9]+$ ]] || [ "$number" -lt 1 ] || [ "$number" -gt 65535 ]; then
    echo "demo: $variable=$number is not a port (1-65535)" >&2
    exit 64
  fi
  if [ -n "${port_what[$number]:-}" ]; then
    echo "demo: port $number is given twice: for ${port_what[$number]} (${port_variable[$number]}) and for $what ($variable)" >&2
    exit 64
  fi
  port_names+=("$number")
  port_what[$number]="$what"
  port_variable[$number]="$variable"
}
add_port "$workers_port" "the coordinator's worker endpoint" WORKFEED_DEMO_WORKERS_PORT
add_port "$control_port" "the coordinator's control endpoint" WORKFEED_DEMO_CONTROL_PORT
add_port "$events_port" "the coordinator's event stream" WORKFEED_DEMO_EVENTS_PORT
coordinator_ports="$workers_port $control_port $events_port"
if [ -n "$metrics_port" ]; then
  add_port "$metrics_port" "the coordinator's metrics" WORKFEED_DEMO_METRICS_PORT
  coordinator_ports="$coordinator_ports $metrics_port"
fi
add_port "$port" "the gateway's HTTP" WORKFEED_DEMO_PORT

# The inodes of the TCP sockets listening on port $1 at an address a bind to 127.0.0.1 clashes
# with: 127.0.0.1, 0.0.0.0, :: and ::ffff:127.0.0.1 (Linux's /proc/net/tcp and tcp6).
listening_inodes() {
  awk -v port="$(printf '%04X' "$1")" '
    FNR > 1 && $4 == "0A" {
      split($2, a, ":")
      if (a[2] == port && (a[1] == "0100007F" || a[1] == "00000000" ||
          a[1] == "00000000000000000000000000000000" || a[1] == "0000000000000000FFFF00000100007F")) print $10
    }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || true
}

# Who listens on port $1: "pid N (name)" for each process this user can see, or a sentence.
port_holder() {
  local inode link pid holders=""
  for inode in $(listening_inodes "$1"); do
    while read -r link; do
      [ -n "$link" ] || continue
      pid="${link#/proc/}"
      pid="${pid%%/*}"
      holders="$holders${holders:+, }pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo '?'))"
    done < <(find /proc/[0-9]*/fd -lname "socket:\[$inode\]" 2>/dev/null | sort -u -t/ -k3,3)
  done
  if [ -n "$holders" ]; then echo "$holders"; else echo "a process this user cannot see"; fi
}

# Whether process $1 itself listens on port $2.
owns_port() {
  local inode
  for inode in $(listening_inodes "$2"); do
    if [ -n "$(find "/proc/$1/fd" -lname "socket:\[$inode\]" 2>/dev/null | head -1)" ]; then return 0; fi
  done
  return 1
}

# Refuses to start when any port the demo binds is taken, naming each with what holds it.
check_ports_free() {
  local number taken=0
  for number in "${port_names[@]}"; do
    if [ -n "$(listening_inodes "$number")" ]; then
      echo "demo: port $number (${port_what[$number]}) is taken by $(port_holder "$number");" \
        "stop that, or move the demo's with ${port_variable[$number]}=PORT" >&2
      taken=1
    fi
  done
  if [ "$taken" = 1 ]; then
    echo "demo: not started: every port above must be free (all are on 127.0.0.1)" >&2
    exit 1
  fi
}

elapsed() {
  local s=$((SECONDS - $1))
  printf '%d:%02d' $((s / 60)) $((s % 60))
}

pids=()
build_pid=""
stop_all() {
  if [ -n "$build_pid" ]; then kill -TERM "$build_pid" 2>/dev/null || true; fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

# Checked before the long build too, so that a taken port is said at once.
check_ports_free

deploy/install-deps.sh

# --- Build --------------------------------------------------------------------------------------

mkdir -p var
products=(workfeed-coordinator workfeed-worker workctl workfeed-gateway)
build_started=$SECONDS
echo "demo: building ${#products[@]} programs (release; the first build takes several minutes; logs: var/demo-build-<program>.log)"
i=0
for product in "${products[@]}"; do
  i=$((i + 1))
  log="var/demo-build-$product.log"
  started=$SECONDS
  echo "demo: building $product ($i of ${#products[@]}, log: $log; $(elapsed "$build_started") so far)"
  swift build -c release --product "$product" >"$log" 2>&1 &
  build_pid=$!
  ticks=0
  while kill -0 "$build_pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    # swift build's own "[done/total]" steps, when it has printed any.
    step="$(tail -c 4096 "$log" 2>/dev/null | grep -o '\[[0-9]*/[0-9]*\]' | tail -1 || true)"
    if [ -t 1 ]; then
      printf '\rdemo:   %s: %s %s (%s so far)   ' "$product" "${step:-starting}" "$(elapsed "$started")" "$(elapsed "$build_started")"
    elif [ $((ticks % 30)) -eq 0 ]; then
      echo "demo:   $product: ${step:-starting}, $(elapsed "$started") ($(elapsed "$build_started") so far)"
    fi
  done
  [ -t 1 ] && printf '\r\033[K'
  status=0
  wait "$build_pid" || status=$?
  build_pid=""
  if [ "$status" -ne 0 ]; then
    tail -40 "$log"
    echo "demo: building $product failed after $(elapsed "$started") (the whole log: $log)" >&2
    exit 1
  fi
  echo "demo: built $product in $(elapsed "$started") ($(elapsed "$build_started") so far)"
done
bin="$(swift build -c release --show-bin-path)"

# --- Start --------------------------------------------------------------------------------------

# Again, now that the build is over: something may have taken a port meanwhile.
check_ports_free

# The picture cache too: a worker checks it can write there before it starts, and refuses a
# missing one (it would be a mount that is not there).
mkdir -p var/demo var/cache
# The maps: the committed tilesets (deploy/basemap/SOURCES.md), for the coordinator's cache keys
# and the workers' drawing alike; a list is comma-separated in the environment.
tilesets=""
for tileset in "${DEMO_TILESETS[@]}"; do tilesets="$tilesets${tilesets:+,}$PWD/$tileset"; done
export WORKFEED_BASEMAP_TILESETS="$tilesets"
# workctl's coordinator (its --coordinator).
export WORKFEED_CONTROL="tcp://127.0.0.1:$control_port"

# Waits until process $3 listens on every port in $4 and `check` succeeds, or stops the demo with
# the log of the process that did not start. A port answered by another process is not this one up.
wait_until_up() {
  local name="$1" log="$2" pid="$3" ports="$4" number owned
  shift 4
  for _ in $(seq 1 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "demo: the $name (pid $pid) exited before it was up; its log, $log:" >&2
      cat "$log" >&2
      exit 1
    fi
    owned=1
    for number in $ports; do owns_port "$pid" "$number" || owned=0; done
    if [ "$owned" = 1 ] && "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "demo: the $name (pid $pid) was not up after 30 s:" >&2
  for number in $ports; do
    if ! owns_port "$pid" "$number"; then
      if [ -n "$(listening_inodes "$number")" ]; then
        echo "  port $number (${port_what[$number]}) is held by $(port_holder "$number"), not by the $name" >&2
      else
        echo "  it does not listen on port $number (${port_what[$number]})" >&2
      fi
    fi
  done
  echo "  the end of its log, $log:" >&2
  tail -20 "$log" >&2
  exit 1
}

"$bin/workfeed-coordinator" --listen-workers "tcp://127.0.0.1:$workers_port" --listen-control "tcp://127.0.0.1:$control_port" \
  --listen-events "tcp://127.0.0.1:$events_port" --listen-metrics "${metrics_port:+127.0.0.1:$metrics_port}" \
  >var/demo/coordinator.log 2>&1 &
coordinator_pid=$!
pids+=("$coordinator_pid")
wait_until_up coordinator var/demo/coordinator.log "$coordinator_pid" "$coordinator_ports" "$bin/workctl" status --timeout 1
echo "demo: coordinator up (pid $coordinator_pid, ports ${coordinator_ports// /, }; log: var/demo/coordinator.log)"

worker_pids=()
for n in 1 2; do
  "$bin/workfeed-worker" --name "demo-worker-$n" --connect "tcp://127.0.0.1:$workers_port" --listen-metrics "" \
    >"var/demo/worker-$n.log" 2>&1 &
  worker_pids+=($!)
  pids+=($!)
done

# Both workers are up when both processes run and the coordinator lists both by name.
workers_up() {
  local listed
  listed="$("$bin/workctl" workers --json --timeout 2 2>/dev/null)" || return 1
  for n in 1 2; do
    grep -Eq "\"name\" *: *\"demo-worker-$n\"" <<<"$listed" || return 1
  done
}
for attempt in $(seq 1 150); do
  for n in 1 2; do
    if ! kill -0 "${worker_pids[n - 1]}" 2>/dev/null; then
      echo "demo: demo-worker-$n (pid ${worker_pids[n - 1]}) exited; its log, var/demo/worker-$n.log:" >&2
      cat "var/demo/worker-$n.log" >&2
      exit 1
    fi
  done
  if workers_up; then break; fi
  if [ "$attempt" -eq 150 ]; then
    echo "demo: the coordinator does not list both workers after 30 s; workctl workers says:" >&2
    "$bin/workctl" workers >&2 || true
    for n in 1 2; do
      echo "  the end of var/demo/worker-$n.log:" >&2
      tail -10 "var/demo/worker-$n.log" >&2
    done
    exit 1
  fi
  sleep 0.2
done
echo "demo: 2 workers up (pids ${worker_pids[*]}, listed by the coordinator; logs: var/demo/worker-*.log)"

# --- Import and render --------------------------------------------------------------------------

echo "demo: importing ${#DEMO_WORKOUTS[@]} sample workouts"
"$bin/workctl" import "${DEMO_WORKOUTS[@]}"
echo "demo: rendering route pictures, heart-rate heatmaps, pace and elevation pictures, light and dark"
# Exit code 2 means done, but some pictures failed (README, "What the demo shows", says which
# the samples are expected to fail and why).
render() { "$bin/workctl" enqueue --all "$@" --wait --wait-timeout 60 || [ $? -eq 2 ]; }
render --kind route --theme light,dark
render --kind heatmap --theme light,dark
render --kind pace,elevation --theme light,dark
echo
echo "demo: the summary (workctl status):"
"$bin/workctl" status
echo
"$bin/workctl" feed --html var/demo/index.html
echo
echo "demo: var/demo/index.html written; pictures are under var/cache/route/."

# --- The gateway --------------------------------------------------------------------------------

# The app's door: a token secret for the demo, the gateway, and a token for the samples' owner
# (imported without --owner: the default owner).
[ -f var/demo/token.secret ] || "$bin/workctl" token secret --out var/demo/token.secret >/dev/null
WORKFEED_TOKENS_SECRET_FILE=var/demo/token.secret "$bin/workfeed-gateway" --listen "127.0.0.1:$port" --cache var/cache \
  --coordinator "tcp://127.0.0.1:$control_port" --events "tcp://127.0.0.1:$events_port" \
  >var/demo/gateway.log 2>&1 &
gateway_pid=$!
pids+=("$gateway_pid")
wait_until_up gateway var/demo/gateway.log "$gateway_pid" "$port" curl -fsS "http://127.0.0.1:$port/readyz"
token="$("$bin/workctl" token create --owner default --expires 1d --secret-file var/demo/token.secret)"
echo "demo: gateway up (pid $gateway_pid, port $port; log: var/demo/gateway.log). The feed page, in a browser:"
echo
echo "  http://127.0.0.1:$port/#token=$token"
echo
if [ "${WORKFEED_DEMO_EXIT:-0}" = "1" ]; then exit 0; fi
echo "demo: serving until Ctrl-C."
wait "$gateway_pid" || true
