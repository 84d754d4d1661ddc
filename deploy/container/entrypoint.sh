#!/bin/sh
# Entrypoint of the WorkFeed image: the first argument picks the program.
#
#   coordinator [flags]   workfeed-coordinator --config $WORKFEED_CONFIG_FILE (default /etc/workfeed/coordinator.yaml)
#   worker [flags]        workfeed-worker --config $WORKFEED_CONFIG_FILE (default /etc/workfeed/worker.yaml)
#   workctl ARGS          workctl (finds the coordinator through WORKFEED_CONTROL)
#   anything else         run as given (e.g. sh, sqlite3)
#
# exec, so that the program is PID 1 and receives SIGTERM from `docker stop` / Kubernetes itself;
# both daemons handle SIGTERM (the coordinator commits and exits, a worker finishes its jobs).
set -eu

program="${1:-coordinator}"
[ "$#" -gt 0 ] && shift

case "$program" in
coordinator)
    exec /usr/local/bin/workfeed-coordinator --config "${WORKFEED_CONFIG_FILE:-/etc/workfeed/coordinator.yaml}" "$@"
    ;;
worker)
    exec /usr/local/bin/workfeed-worker --config "${WORKFEED_CONFIG_FILE:-/etc/workfeed/worker.yaml}" "$@"
    ;;
workctl | ctl)
    exec /usr/local/bin/workctl "$@"
    ;;
*)
    exec "$program" "$@"
    ;;
esac
