#!/bin/sh
# Entrypoint of the WorkFeed image: the first argument picks the program.
#
#   coordinator [flags]   workfeed-coordinator --config $WORKFEED_CONFIG_FILE (default /etc/workfeed/coordinator.yaml)
#   worker [flags]        workfeed-worker --config $WORKFEED_CONFIG_FILE (default /etc/workfeed/worker.yaml)
#   workctl ARGS          workctl (finds the coordinator through WORKFEED_CONTROL, its event
#                         stream through WORKFEED_EVENTS, its keys through WORKFEED_KEY_FILE and
#                         WORKFEED_SERVER_KEY or WORKFEED_SERVER_KEY_FILE, see below)
#   anything else         run as given (e.g. sh, sqlite3)
#
# WORKFEED_SERVER_KEY_FILE (workctl only): a file holding the coordinator's public key, as the
# 'public: KEY' line of deploy/make-keys.sh's coordinator.pub (or of the coordinator's own key
# file), or as a line holding just the key. It is read into WORKFEED_SERVER_KEY unless that is set,
# so that the key, whose Z85 characters include $ # ( ) [ ] { }, never has to be written into
# compose.yaml or a shell command.
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
    if [ -z "${WORKFEED_SERVER_KEY:-}" ] && [ -n "${WORKFEED_SERVER_KEY_FILE:-}" ]; then
        if [ ! -r "$WORKFEED_SERVER_KEY_FILE" ]; then
            echo "workfeed-entrypoint: cannot read WORKFEED_SERVER_KEY_FILE=$WORKFEED_SERVER_KEY_FILE" >&2
            exit 78
        fi
        key=$(sed -n 's/^public:[[:space:]]*//p' "$WORKFEED_SERVER_KEY_FILE" | head -n 1 | tr -d ' \t\r')
        if [ -z "$key" ]; then
            key=$(grep -v -e '^#' -e '^[[:space:]]*$' "$WORKFEED_SERVER_KEY_FILE" | head -n 1 | tr -d ' \t\r')
        fi
        if [ "${#key}" -ne 40 ]; then
            echo "workfeed-entrypoint: no 40-character public key in WORKFEED_SERVER_KEY_FILE=$WORKFEED_SERVER_KEY_FILE" >&2
            exit 78
        fi
        WORKFEED_SERVER_KEY=$key
        export WORKFEED_SERVER_KEY
    fi
    exec /usr/local/bin/workctl "$@"
    ;;
*)
    exec "$program" "$@"
    ;;
esac
