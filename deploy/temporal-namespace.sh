#!/bin/sh
# Waits for the server, creates the namespace and registers Wharf's search attributes (idempotent).
# Run by the compose file (in the admin-tools image) and by `wharf cluster up` (with the temporal
# CLI on PATH). A namespace just created is not in the server's namespace cache for some seconds,
# and an attribute just added is not usable until that cache refreshes: each step is retried
# until the server answers for it, so the workers start only once swarms can be started.
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  echo "waiting for $TEMPORAL_ADDRESS"; sleep 2
done
temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 ||
  temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 7d --address "$TEMPORAL_ADDRESS"
# retry <what> <command…>: runs the command every 2 s until it succeeds, for at most 2 minutes.
retry() {
  what="$1"; shift
  tries=0
  until "$@" >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 60 ] || { echo "gave up: $what" >&2; exit 1; }
    sleep 2
  done
}
for attribute in WharfSwarm:Keyword WharfOwner:Keyword WharfStatus:Keyword WharfPendingGates:Int WharfRerunOf:Keyword; do
  name="${attribute%%:*}"
  registered() {
    temporal operator search-attribute list --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" |
      grep -q "^ *$name "
  }
  create() {
    registered || temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" \
      --address "$TEMPORAL_ADDRESS" --name "$name" --type "${attribute#*:}"
  }
  retry "registering $name" create
done
# Usable once a query on them is accepted.
retry "querying WharfSwarm" temporal workflow list --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" \
  --query 'WharfSwarm = "ready-check"' --limit 1
echo "namespace $TEMPORAL_NAMESPACE is ready"
