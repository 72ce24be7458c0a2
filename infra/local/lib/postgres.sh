# shellcheck shell=bash
# PostgreSQL: Debian packages (apt) when missing, own cluster under
# $VERDICT_INFRA_DIR/data/postgres, run as the `postgres` OS user.

: "${VERDICT_PG_PORT:=54329}"
PG_DB=verdict
PG_USER=verdict
PG_PASSWORD=verdict
PG_OS_USER=postgres
PG_DATA="$DATA_DIR/postgres"
PG_SOCKET_DIR="$RUN_DIR/postgres-socket"
PG_PIDFILE="$RUN_DIR/postgres.pid"
PG_LOG="$LOG_DIR/postgres.log"
PG_PATTERN="postgres"

pg_env_line() {
  echo "DATABASE_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$VERDICT_PG_PORT/$PG_DB"
}

# Newest /usr/lib/postgresql/<major>/bin that has a server; if the cluster
# already exists, the bin dir of its major version.
pg_find_bin() {
  local want="" d best=""
  [ -s "$PG_DATA/PG_VERSION" ] && want="$(cat "$PG_DATA/PG_VERSION")"
  if [ -n "$want" ]; then
    d="/usr/lib/postgresql/$want/bin"
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    return 1
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && best="$d"
  done
  [ -n "$best" ] || return 1
  echo "$best"
}

pg_running() {
  pid_alive "$PG_PIDFILE" "$PG_PATTERN"
}

pg_as() { runuser -u "$PG_OS_USER" -- "$@"; }

pg_ensure_installed() {
  if PG_BIN="$(pg_find_bin)"; then return 0; fi
  if [ -s "$PG_DATA/PG_VERSION" ]; then
    die "cluster in $PG_DATA is PostgreSQL $(cat "$PG_DATA/PG_VERSION") but /usr/lib/postgresql/$(cat "$PG_DATA/PG_VERSION")/bin is missing (install postgresql-$(cat "$PG_DATA/PG_VERSION") or reset: infra/local/down postgres && rm -rf $PG_DATA)"
  fi
  log "postgres: no server binary under /usr/lib/postgresql/*/bin"
  apt_install postgresql
  PG_BIN="$(pg_find_bin)" || die "postgres: still no server binary after apt-get install postgresql"
}

pg_ensure_user() {
  if ! id -u "$PG_OS_USER" >/dev/null 2>&1; then
    log "postgres: creating system user '$PG_OS_USER'"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash "$PG_OS_USER"
  fi
}

pg_write_conf() {
  # Regenerated on every start so port changes apply; included from postgresql.conf.
  cat >"$PG_DATA/verdict.conf" <<EOF
# Managed by infra/local/lib/postgres.sh — regenerated on every 'up'.
listen_addresses = '127.0.0.1'
port = $VERDICT_PG_PORT
unix_socket_directories = '$PG_SOCKET_DIR'
max_connections = 200
shared_buffers = 256MB
# Ingest writes tens of MB of WAL a second. At the default of 1GB a checkpoint came every 11 s under the
# ingest bench, and after each the first change to every page wrote the whole page to the WAL again.
max_wal_size = 4GB
password_encryption = 'scram-sha-256'
EOF
  chown "$PG_OS_USER:" "$PG_DATA/verdict.conf"
  grep -q "^include_if_exists = 'verdict.conf'" "$PG_DATA/postgresql.conf" ||
    echo "include_if_exists = 'verdict.conf'" >>"$PG_DATA/postgresql.conf"
}

pg_init() {
  local pwfile
  ensure_traversable_for "$PG_OS_USER" "$DATA_DIR"
  mkdir -p "$PG_DATA" "$PG_SOCKET_DIR"
  chown "$PG_OS_USER:" "$PG_DATA" "$PG_SOCKET_DIR"
  chmod 700 "$PG_DATA"
  touch "$PG_LOG" && chown "$PG_OS_USER:" "$PG_LOG"
  if [ ! -s "$PG_DATA/PG_VERSION" ]; then
    log "postgres: initdb $PG_DATA ($("$PG_BIN/postgres" --version))"
    pwfile="$(mktemp)"
    echo "$PG_PASSWORD" >"$pwfile"
    chown "$PG_OS_USER:" "$pwfile"
    # Bootstrap superuser is 'verdict' (local dev/test convenience).
    pg_as "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_USER" --pwfile="$pwfile" \
      -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >>"$PG_LOG" 2>&1 ||
      { rm -f "$pwfile"; tail -n 30 "$PG_LOG" >&2; die "postgres: initdb failed (log: $PG_LOG)"; }
    rm -f "$pwfile"
  fi
}

pg_ensure_db() {
  local psql=("$PG_BIN/psql" -X -q -h "$PG_SOCKET_DIR" -p "$VERDICT_PG_PORT" -U "$PG_USER" -d postgres)
  if [ "$(pg_as "${psql[@]}" -tAc "select 1 from pg_database where datname = '$PG_DB'")" != "1" ]; then
    log "postgres: creating database $PG_DB"
    pg_as "${psql[@]}" -c "create database $PG_DB owner $PG_USER" >/dev/null
  fi
}

pg_up() {
  local pid
  if pid="$(pg_running)"; then
    log "postgres: already running (pid $pid, port $VERDICT_PG_PORT)"
    return 0
  fi
  clear_stale_pid "$PG_PIDFILE" "$PG_PATTERN"
  pg_ensure_installed
  pg_ensure_user
  pg_init
  pg_write_conf
  # After a crash postmaster.pid may name a dead (or zombie) process, which
  # postgres itself would treat as alive; remove it in that case.
  local old
  if [ -s "$PG_DATA/postmaster.pid" ]; then
    old="$(head -n1 "$PG_DATA/postmaster.pid" | tr -dc '0-9')"
    if [ -z "$old" ] || ! proc_live "$old"; then
      log "postgres: removing stale $PG_DATA/postmaster.pid (pid ${old:-?} gone)"
      rm -f "$PG_DATA/postmaster.pid"
    elif tr '\0' ' ' <"/proc/$old/cmdline" 2>/dev/null | grep -q -- "$PG_DATA"; then
      die "postgres: a postmaster (pid $old) not started by infra/local/up is already running on $PG_DATA; stop it first"
    fi
  fi
  if port_open 127.0.0.1 "$VERDICT_PG_PORT"; then
    die "postgres: port $VERDICT_PG_PORT already in use by another process (set VERDICT_PG_PORT)"
  fi
  log "postgres: starting on 127.0.0.1:$VERDICT_PG_PORT"
  if ! pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 start >/dev/null 9>&-; then
    tail -n 30 "$PG_LOG" >&2
    die "postgres: failed to start (log: $PG_LOG)"
  fi
  head -n1 "$PG_DATA/postmaster.pid" >"$PG_PIDFILE"
  pg_ensure_db
  log "postgres: running (pid $(cat "$PG_PIDFILE"))"
}

pg_down() {
  local pid bin
  if ! pid="$(pg_running)"; then
    stop_pid "$PG_PIDFILE" "$PG_PATTERN" postgres 1
    return 0
  fi
  log "postgres: stopping pid $pid (pg_ctl stop -m fast)"
  if bin="$(pg_find_bin)"; then
    pg_as "$bin/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null || true
  fi
  # Fallback (and pid-file cleanup) if pg_ctl was not able to stop it.
  stop_pid "$PG_PIDFILE" "$PG_PATTERN" postgres 30 >/dev/null 2>&1 || true
  rm -f "$PG_PIDFILE"
  log "postgres: stopped"
}

pg_status() {
  local pid
  if pid="$(pg_running)"; then
    echo "postgres: running   pid=$pid  127.0.0.1:$VERDICT_PG_PORT  data=$PG_DATA"
  else
    echo "postgres: stopped"
    return 1
  fi
}
