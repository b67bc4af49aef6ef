#!/bin/sh
# Creates and migrates Temporal's two PostgreSQL databases (idempotent: safe to run again).
# Run by the compose file (in the admin-tools image) and by `wharf cluster up` (natively): the
# tool and the schema folder default to the image's paths, TEMPORAL_SQL_TOOL and
# TEMPORAL_SCHEMA_DIR name them elsewhere.
set -eu
tool() { "${TEMPORAL_SQL_TOOL:-temporal-sql-tool}" --plugin "$SQL_PLUGIN" --ep "$SQL_HOST" -p "$SQL_PORT" -u "$SQL_USER" --pw "$SQL_PASSWORD" "$@"; }
schema="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12"
for db in temporal temporal_visibility; do
  tool --db "$db" create-database || true
done
tool --db temporal setup-schema -v 0.0 || true
tool --db temporal update-schema -d "$schema/temporal/versioned"
tool --db temporal_visibility setup-schema -v 0.0 || true
tool --db temporal_visibility update-schema -d "$schema/visibility/versioned"
echo "temporal schemas are up to date"
