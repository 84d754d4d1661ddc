#!/usr/bin/env bash
# Makes the CURVE keys of one WorkFeed deployment, and configuration files that use them.
#
#   deploy/make-keys.sh [--owner UID[:GID]] [--coordinator-host HOST] [--key-dir PATH] DIR
#
# Writes into DIR (created 0700 if missing; nothing is ever overwritten: if any of these files
# exists, nothing is written at all):
#
#   coordinator.key   the coordinator's key pair (secret: the coordinator only)
#   worker.key        the key pair every worker of this deployment uses (secret)
#   operator.key      the key pair of workctl (secret: operators)
#   gateway.key       the key pair of the HTTP gateway (secret: gateways)
#   coordinator.pub   the coordinator's public key alone, as a 'public: KEY' line: what workers and
#                     workctl need (WORKFEED_SERVER_KEY_FILE of deploy/container/entrypoint.sh)
#   coordinator.yaml  a coordinator configuration: listening on every interface (tcp://0.0.0.0:5555,
#                     5556, 5557), CURVE on with this key, worker.key allowed as a worker (worker
#                     socket only), operator.key as an operator and gateway.key as a gateway
#                     (control and event sockets only)
#   worker.yaml       a worker configuration: connects to tcp://HOST:5555 with worker.key
#   public-keys.env   server_key=..., worker_keys=..., operator_keys=..., gateway_keys=...: the Kubernetes ConfigMap
#                     workfeed-public-keys (deploy/kubernetes/kustomization.yaml reads it)
#
# The key files are made by `workctl keygen` (mode 600, owned by whoever runs this). The YAML files
# name the keys by where the programs will find them: --key-dir (default /etc/workfeed/keys, where
# deploy/container/compose.yaml mounts them and where a systemd install puts them). Paths of the
# index and cache in coordinator.yaml/worker.yaml are those of the systemd units and of the image.
#
# Options:
#   --owner UID[:GID]        chown the key files (and DIR, if made here) to this owner; needs
#                            root. The container image runs as 10001:10001, and a bind-mounted
#                            file keeps its host owner and mode, so for Compose:
#                            sudo deploy/make-keys.sh --owner 10001:10001 deploy/container/keys
#   --coordinator-host HOST  the coordinator's host name in worker.yaml and in the printed workctl
#                            flags (default: coordinator, its Compose service name)
#   --key-dir PATH           where the programs find the key files (default /etc/workfeed/keys)
#
# workctl is $WORKCTL, else `workctl` on PATH, else .build/release/workctl or .build/debug/workctl
# of this repository.
set -euo pipefail

usage() {
  sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  echo "See the comment at the top of ${BASH_SOURCE[0]} for what it writes."
}

die() {
  echo "make-keys: $*" >&2
  exit 1
}

owner=""
host="coordinator"
key_dir="/etc/workfeed/keys"
while [ $# -gt 0 ]; do
  case "$1" in
  --owner) [ $# -ge 2 ] || die "--owner needs UID[:GID]"; owner=$2; shift 2 ;;
  --owner=*) owner=${1#*=}; shift ;;
  --coordinator-host) [ $# -ge 2 ] || die "--coordinator-host needs a host"; host=$2; shift 2 ;;
  --coordinator-host=*) host=${1#*=}; shift ;;
  --key-dir) [ $# -ge 2 ] || die "--key-dir needs a path"; key_dir=$2; shift 2 ;;
  --key-dir=*) key_dir=${1#*=}; shift ;;
  -h | --help) usage; exit 0 ;;
  --) shift; break ;;
  -*) echo "make-keys: unknown option $1" >&2; usage >&2; exit 64 ;;
  *) break ;;
  esac
done
[ $# -eq 1 ] || { usage >&2; exit 64; }
dir=$1

# What goes into YAML and printed commands: no quotes, spaces or other surprises.
host_pattern='^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])$'
[[ $host =~ $host_pattern ]] || die "--coordinator-host '$host' is not a host name or address"
[[ $key_dir == /* && $key_dir != *[\'\"[:space:]\\]* ]] || die "--key-dir must be an absolute path without quotes or spaces"
key_dir=${key_dir%/}
if [ -n "$owner" ]; then
  owner_pattern='^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$'
  [[ $owner =~ $owner_pattern ]] || die "--owner '$owner' is not UID[:GID]"
  [ "$(id -u)" -eq 0 ] || die "--owner needs root (it runs chown): sudo $0 --owner $owner ..."
fi

# The first workctl that has `keygen` (an older build may not: it is skipped, and said so).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${WORKCTL:-}" ]; then
  [ -x "$WORKCTL" ] || die "WORKCTL=$WORKCTL is not an executable file"
  candidates=("$WORKCTL")
else
  candidates=()
  if command -v workctl >/dev/null 2>&1; then candidates+=("$(command -v workctl)"); fi
  candidates+=("$repo/.build/release/workctl" "$repo/.build/debug/workctl")
fi
workctl=""
for candidate in "${candidates[@]}"; do
  [ -x "$candidate" ] || continue
  if "$candidate" keygen --help 2>/dev/null | grep -q -e "--out"; then
    workctl=$candidate
    break
  fi
  echo "make-keys: $candidate has no keygen command (an older build): skipped" >&2
done
[ -n "$workctl" ] || die "no workctl with keygen: set WORKCTL, put workctl on PATH, or build it (swift build --product workctl)"

files=(coordinator.key worker.key operator.key gateway.key coordinator.pub coordinator.yaml worker.yaml public-keys.env)
existing=()
for f in "${files[@]}"; do
  if [ -e "$dir/$f" ] || [ -L "$dir/$f" ]; then existing+=("$dir/$f"); fi
done
[ ${#existing[@]} -eq 0 ] || die "refusing to overwrite: ${existing[*]} (keys are never replaced; use another directory)"

umask 077
created_dir=0
if [ ! -d "$dir" ]; then
  mkdir -p "$dir"
  created_dir=1
fi
abs=$(cd "$dir" && pwd)

# If anything fails from here on, remove what this run wrote: no half-made set of keys.
made=()
done_ok=0
cleanup() {
  if [ "$done_ok" -eq 0 ] && [ ${#made[@]} -gt 0 ]; then
    rm -f -- "${made[@]}"
    echo "make-keys: failed; removed what was written" >&2
  fi
}
trap cleanup EXIT

# The public key of a key file: its 'public:' line.
public_key() {
  local key
  key=$(sed -n 's/^public:[[:space:]]*//p' "$1" | head -n 1 | tr -d '[:space:]')
  [ ${#key} -eq 40 ] && [[ $key != *[\'\"\\,]* ]] || die "$1: no 40-character Z85 public key in it"
  printf '%s' "$key"
}

for name in coordinator worker operator gateway; do
  made+=("$abs/$name.key")
  "$workctl" keygen --out "$abs/$name.key" >/dev/null || die "workctl keygen --out $abs/$name.key failed"
done
coordinator=$(public_key "$abs/coordinator.key")
worker=$(public_key "$abs/worker.key")
operator=$(public_key "$abs/operator.key")
gateway=$(public_key "$abs/gateway.key")
[ "$(printf '%s\n' "$coordinator" "$worker" "$operator" "$gateway" | sort -u | wc -l)" -eq 4 ] || die "keygen made the same key twice"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# Keys are written single-quoted in YAML: Z85 uses characters such as $ # : [ ] { } that would
# otherwise mean something (a single quote is not one of them).
made+=("$abs/coordinator.pub")
cat >"$abs/coordinator.pub" <<EOF
# The WorkFeed coordinator's public key (deploy/make-keys.sh, $stamp). Not secret:
# workers need it (security.server_key), and workctl (--server-key, WORKFEED_SERVER_KEY).
public: $coordinator
EOF

made+=("$abs/coordinator.yaml")
cat >"$abs/coordinator.yaml" <<EOF
# WorkFeed coordinator configuration, made by deploy/make-keys.sh ($stamp).
# deploy/container/compose.yaml mounts it at $key_dir/coordinator.yaml; it also serves as
# /etc/workfeed/coordinator.yaml of a systemd install (same paths). Config/coordinator.yaml in the
# repository documents every key that can be added.

index:
  path: /var/lib/workfeed/index.sqlite

cache:
  # Deleted workouts' pictures are removed from here: the coordinator needs write access.
  directory: /var/cache/workfeed

listen:
  # Every interface: CURVE (below) encrypts every connection and lets in only the allowed keys.
  # On a host with a public interface, prefer a private address (tcp://10.0.0.5:5555) anyway.
  workers: tcp://0.0.0.0:5555
  control: tcp://0.0.0.0:5556
  events: tcp://0.0.0.0:5557

security:
  key_file: $key_dir/coordinator.key
  # Each key has one role: a worker key is let in on the worker socket only, an operator or
  # gateway key on the control and event sockets only (docs/security.md).
  worker_keys:
    # worker.key: every worker of this deployment
    - '$worker'
  operator_keys:
    # operator.key: workctl
    - '$operator'
  gateway_keys:
    # gateway.key: the HTTP gateway
    - '$gateway'

jobs:
  # A leased job not reported within this many seconds is leased again (it counts as an attempt).
  deadline_seconds: 120

log:
  level: info
  format: text
EOF

made+=("$abs/worker.yaml")
cat >"$abs/worker.yaml" <<EOF
# WorkFeed worker configuration, made by deploy/make-keys.sh ($stamp).
# deploy/container/compose.yaml mounts it at $key_dir/worker.yaml; it also serves as
# /etc/workfeed/worker.yaml of a systemd install (same paths). Config/worker.yaml in the
# repository documents every key that can be added.

# The coordinator's listen.workers.
coordinator: tcp://$host:5555

cache:
  directory: /var/cache/workfeed

# Render threads (jobs held at once: these and jobs_ahead, 1 by default). 0: one per core.
render_threads: 0

shutdown:
  grace_seconds: 30

security:
  key_file: $key_dir/worker.key
  # The coordinator's public key (coordinator.pub).
  server_key: '$coordinator'

log:
  level: info
  format: text
EOF

made+=("$abs/public-keys.env")
cat >"$abs/public-keys.env" <<EOF
# The public keys of this WorkFeed deployment (deploy/make-keys.sh, $stamp),
# for the Kubernetes ConfigMap workfeed-public-keys: deploy/kubernetes/kustomization.yaml reads
# this file (or: kubectl -n workfeed create configmap workfeed-public-keys --from-env-file=FILE).
# Each value is taken literally up to the end of its line: no quotes, no interpolation.
server_key=$coordinator
worker_keys=$worker
operator_keys=$operator
gateway_keys=$gateway
EOF

chmod 0644 "$abs/coordinator.pub" "$abs/coordinator.yaml" "$abs/worker.yaml" "$abs/public-keys.env"
chmod 0600 "$abs/coordinator.key" "$abs/worker.key" "$abs/operator.key" "$abs/gateway.key"
if [ -n "$owner" ]; then
  chown "$owner" "$abs/coordinator.key" "$abs/worker.key" "$abs/operator.key" "$abs/gateway.key"
  # DIR too, when this run made it (0700): then the keys' owner can also mount DIR as a whole.
  if [ "$created_dir" -eq 1 ]; then chown "$owner" "$abs"; fi
fi
done_ok=1

# For a shell: single quotes, with any single quote in a path escaped.
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

cat <<EOF
make-keys: wrote to $abs:
  coordinator.key   secret: the coordinator only
  worker.key        secret: every worker of this deployment
  operator.key      secret: operators (workctl)
  gateway.key       secret: the HTTP gateway
  coordinator.pub   the coordinator's public key (not secret)
  coordinator.yaml  coordinator configuration (keys in $key_dir)
  worker.yaml       worker configuration (coordinator tcp://$host:5555)
  public-keys.env   public keys for the Kubernetes ConfigMap workfeed-public-keys
${owner:+  key files owned by $owner
}
public keys:
  coordinator  $coordinator
  worker       $worker
  operator     $operator
  gateway      $gateway

workctl with the operator key (flags):
  workctl status --coordinator tcp://$host:5556 --key-file $(shq "$abs/operator.key") --server-key $(shq "$coordinator")
  workctl watch --events tcp://$host:5557 --key-file $(shq "$abs/operator.key") --server-key $(shq "$coordinator")
or in the environment:
  export WORKFEED_CONTROL=tcp://$host:5556 WORKFEED_EVENTS=tcp://$host:5557
  export WORKFEED_KEY_FILE=$(shq "$abs/operator.key") WORKFEED_SERVER_KEY=$(shq "$coordinator")
EOF
