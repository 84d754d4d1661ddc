#!/usr/bin/env bash
# The long chaos run (`make chaos`; docs/chaos.md): at least 2,000 real picture jobs through a
# coordinator and three workers run as real processes on loopback, while a worker is killed with
# SIGKILL and restarted every few seconds and the coordinator is killed with SIGKILL and restarted
# twice. At the end every job must be `generated`, or `failed-no-retry` exactly where the inputs
# say so, every PNG must equal a local render byte for byte, and no temporary file may be left.
# Prints jobs done, kills survived, jobs re-leased and the wall time.
#
# It runs once on each index of WORKFEED_CHAOS_INDEX: on SQLite (ChaosTests/fullChaos: one
# coordinator, killed at 1/3 and 2/3), then on PostgreSQL (ChaosTests/fullChaosOnPostgreSQL: a
# server of the run's own, Debian's postgresql from deploy/install-test-deps.sh, in a temporary
# directory; two coordinators on one database, the workers split between them and each given
# both; the first coordinator killed at 1/3, the second at 2/3, and the server restarted at 1/2).
# Both tests are enabled by WORKFEED_CHAOS_FULL=1.
# Settings, all optional:
#   WORKFEED_CHAOS_INDEX=sqlite,postgres   the indexes to run on, in that order
#   WORKFEED_CHAOS_ROUTES=299      route workouts (+1 waypoint-only); x 2 kinds x 2 themes x 2 scales
#                                  = 8 jobs each: 299 gives 2,400 jobs
#   WORKFEED_CHAOS_WORKERS=3       worker processes
#   WORKFEED_CHAOS_THREADS=2       render threads per worker
#   WORKFEED_CHAOS_KILL_EVERY=3    a worker is killed every 0.5x-1.5x this many seconds
#   WORKFEED_CHAOS_SEED=...        the kill schedule's seed (printed), to replay a run
#   WORKFEED_CHAOS_TIMEOUT=1800    seconds before the run counts as stuck
#   WORKFEED_CHAOS_KEEP=1          keep the run's directory (index, cache, every process's log)
#   CHAOS_RELEASE=1                run release builds of the three programs (the test harness
#                                  itself stays a debug build)
#   SCRATCH_PATH=.build            SwiftPM's build directory (--scratch-path)
#   CHAOS_SKIP_BUILD=1             use what is built
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${SCRATCH_PATH:-.build}"
if [ "${CHAOS_SKIP_BUILD:-0}" != "1" ]; then
  swift build --build-tests --scratch-path "$scratch"
  if [ "${CHAOS_RELEASE:-0}" = "1" ]; then
    swift build -c release --scratch-path "$scratch" --product workfeed-coordinator
    swift build -c release --scratch-path "$scratch" --product workfeed-worker
    swift build -c release --scratch-path "$scratch" --product workctl
  fi
fi
if [ "${CHAOS_RELEASE:-0}" = "1" ]; then
  WORKFEED_BIN_DIR="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"
else
  WORKFEED_BIN_DIR="$(swift build --scratch-path "$scratch" --show-bin-path)"
fi
export WORKFEED_BIN_DIR
export WORKFEED_CHAOS_FULL=1

echo "chaos: programs from $WORKFEED_BIN_DIR" >&2
status=0
for index in $(echo "${WORKFEED_CHAOS_INDEX:-sqlite,postgres}" | tr ',' ' '); do
  case "$index" in
    sqlite) test='fullChaos\(\)' ;;
    postgres) test='fullChaosOnPostgreSQL\(\)' ;;
    *) echo "chaos: WORKFEED_CHAOS_INDEX names sqlite and postgres, not '$index'" >&2; exit 64 ;;
  esac
  started=$(date +%s)
  run=0
  swift test --skip-build --scratch-path "$scratch" --filter "ChaosTests\.ChaosTests/$test" || run=$?
  echo "chaos: $index $( [ $run -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - started )) s (build excluded)" >&2
  [ $run -eq 0 ] || status=$run
done
exit $status
