#!/bin/sh
# Creates the role and database of Wharf's output store on the cluster's PostgreSQL
# (idempotent: safe to run again). The store creates and migrates its own tables.
set -eu
psql -v ON_ERROR_STOP=1 -v password="$WHARF_DB_PASSWORD" -h "$PGHOST" -U "$PGUSER" -d postgres <<'SQL'
SELECT format('CREATE ROLE wharf LOGIN PASSWORD %L', :'password')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wharf') \gexec
SELECT format('ALTER ROLE wharf PASSWORD %L', :'password') \gexec
SELECT 'CREATE DATABASE wharf OWNER wharf'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'wharf') \gexec
SQL
echo "wharf database is ready"
