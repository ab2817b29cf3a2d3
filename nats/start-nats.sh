#!/bin/sh
# Starts nats-server with a configuration `npm run nats:config` wrote, only if every password it
# references is set and safe. nats-server itself takes a defined-but-empty variable as the
# password "" and lets that user in; this refuses to start instead (exit 78, EX_CONFIG).
#
#   start-nats.sh -c <config> [nats-server options]
#
# A configuration written with --cluster also needs NATS_ROUTE_HOSTS (host:port of every
# node's route listener, comma-separated, this node's own included): the route URLs carry the
# route user's password, so they are built here, in the environment, never in a file or in
# the process's arguments. NATS_CLUSTER_LISTEN defaults to 0.0.0.0:6222. --cluster and
# --routes are refused: nats-server's --cluster flag clears the cluster block's authorization.
# NATS_SERVER_BIN names the binary (default: nats-server on PATH).
set -eu

fail() {
  echo "start-nats: $*; nats-server not started" >&2
  exit 78
}

[ "${1-}" = "-c" ] && [ -n "${2-}" ] || fail "usage: start-nats.sh -c <config> [nats-server options]"
config=$2
[ -r "$config" ] || fail "cannot read $config"

for arg in "$@"; do
  case "$arg" in
    --cluster | --cluster=* | --routes | --routes=* | --cluster_listen | --cluster_listen=*)
      fail "$arg would drop the route authorization of $config; set NATS_ROUTE_HOSTS instead"
      ;;
  esac
done

# Only upper-case names reach eval, by the pattern itself.
for variable in $(grep -o '\$NATS_PASSWORD_[A-Z_]*' "$config" | tr -d '$' | sort -u); do
  eval "isset=\${$variable+x} value=\${$variable-}"
  [ -n "$isset" ] || fail "$variable is not set"
  [ -n "$value" ] || fail "$variable is empty, which nats-server would take as a password"
  printf '%s' "$value" | grep -Eqx '[A-Za-z][A-Za-z0-9]{23,127}' \
    || fail "$variable must match ^[A-Za-z][A-Za-z0-9]{23,127}\$ (24 characters at least)"
done

if grep -q '\$NATS_ROUTES' "$config"; then
  hosts=${NATS_ROUTE_HOSTS-}
  [ -n "$hosts" ] || fail "NATS_ROUTE_HOSTS is not set (host:port of every node's routes, comma-separated)"
  routes=""
  for host in $(printf '%s' "$hosts" | tr ',' ' '); do
    printf '%s' "$host" | grep -Eqx '[A-Za-z0-9.-]+:[0-9]{1,5}' \
      || fail "NATS_ROUTE_HOSTS holds $host, not host:port"
    routes="$routes${routes:+, }\"nats-route://route:$NATS_PASSWORD_ROUTE@$host\""
  done
  NATS_ROUTES="[$routes]"
  export NATS_ROUTES
  NATS_CLUSTER_LISTEN=${NATS_CLUSTER_LISTEN:-0.0.0.0:6222}
  printf '%s' "$NATS_CLUSTER_LISTEN" | grep -Eqx '[A-Za-z0-9.-]+:[0-9]{1,5}' \
    || fail "NATS_CLUSTER_LISTEN must be host:port"
  export NATS_CLUSTER_LISTEN
fi

exec "${NATS_SERVER_BIN:-nats-server}" "$@"
