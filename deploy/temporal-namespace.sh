#!/bin/sh
# Waits for the server, creates the namespace and registers Wharf's search attributes (idempotent).
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  echo "waiting for $TEMPORAL_ADDRESS"; sleep 2
done
temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 ||
  temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 7d --address "$TEMPORAL_ADDRESS"
for attribute in WharfSwarm:Keyword WharfOwner:Keyword WharfStatus:Keyword WharfPendingGates:Int WharfRerunOf:Keyword; do
  temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" \
    --name "${attribute%%:*}" --type "${attribute#*:}" 2>/dev/null || true
done
echo "namespace $TEMPORAL_NAMESPACE is ready"
