#!/bin/bash
# Initialises the cluster on first start as the official image does: superuser POSTGRES_USER with
# POSTGRES_PASSWORD, database POSTGRES_DB, then the *.sql files of /docker-entrypoint-initdb.d; then runs
# the server as `postgres`, listening on every address of the container.
set -euo pipefail
if [ "${1:-}" = postgres ]; then shift; fi
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
[ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is required" >&2; exit 1; }
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  # A server on the socket alone for the set-up, as the official image runs its init scripts.
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql=(psql -v ON_ERROR_STOP=1 -X -q -U "$POSTGRES_USER" -h /var/run/postgresql)
  if [ "$POSTGRES_DB" != postgres ]; then
    as_postgres "${psql[@]}" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\""
  fi
  for file in /docker-entrypoint-initdb.d/*.sql; do
    [ -f "$file" ] || continue
    echo "running $file"
    as_postgres "${psql[@]}" -d "$POSTGRES_DB" -f "$file"
  done
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*' "$@"
