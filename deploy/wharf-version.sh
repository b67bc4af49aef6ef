#!/bin/sh
# Makes the workers' build the Current Version of their Worker Deployment once they poll
# (idempotent): new swarms start on it, running ones finish on the version they started on.
# Run by the compose file (in the admin-tools image, once the workers are healthy) and by
# `wharf cluster up` (with the temporal CLI on PATH). The server refuses a version whose workers
# have not polled every task queue of the deployment yet: retried every 2 s for 2 minutes.
set -eu
: "${WHARF_DEPLOYMENT_NAME:?}" "${WHARF_BUILD_ID:?}"
tries=0
until out=$(temporal worker deployment set-current-version --yes \
  --deployment-name "$WHARF_DEPLOYMENT_NAME" --build-id "$WHARF_BUILD_ID" \
  --namespace "$TEMPORAL_NAMESPACE" --address "$TEMPORAL_ADDRESS" 2>&1); do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "gave up: $out" >&2; exit 1; }
  sleep 2
done
echo "$WHARF_DEPLOYMENT_NAME:$WHARF_BUILD_ID is the current version"
