# shellcheck shell=bash
# Redis: Debian package redis-server (apt) when missing; daemonized with its
# own config under $VERDICT_INFRA_DIR.

: "${VERDICT_REDIS_PORT:=63799}"
REDIS_DIR="$DATA_DIR/redis"
REDIS_CONF="$VERDICT_INFRA_DIR/redis.conf"
REDIS_PIDFILE="$RUN_DIR/redis.pid"
REDIS_LOG="$LOG_DIR/redis.log"
REDIS_PATTERN="redis-server"

redis_env_line() { echo "REDIS_URL=redis://127.0.0.1:$VERDICT_REDIS_PORT"; }

redis_running() { pid_alive "$REDIS_PIDFILE" "$REDIS_PATTERN"; }

redis_ensure_installed() {
  command -v redis-server >/dev/null && return 0
  log "redis: redis-server not found"
  apt_install redis-server
  command -v redis-server >/dev/null || die "redis: redis-server still missing after apt-get install"
}

redis_write_conf() {
  mkdir -p "$REDIS_DIR"
  cat >"$REDIS_CONF" <<EOF
# Managed by infra/local/lib/redis.sh — regenerated on every 'up'.
bind 127.0.0.1
port $VERDICT_REDIS_PORT
protected-mode yes
daemonize yes
supervised no
pidfile $REDIS_PIDFILE
logfile $REDIS_LOG
dir $REDIS_DIR
save ""
appendonly no
databases 16
EOF
}

redis_up() {
  local pid i
  if pid="$(redis_running)"; then
    log "redis: already running (pid $pid, port $VERDICT_REDIS_PORT)"
    return 0
  fi
  clear_stale_pid "$REDIS_PIDFILE" "$REDIS_PATTERN"
  redis_ensure_installed
  redis_write_conf
  if port_open 127.0.0.1 "$VERDICT_REDIS_PORT"; then
    die "redis: port $VERDICT_REDIS_PORT already in use by another process (set VERDICT_REDIS_PORT)"
  fi
  log "redis: starting on 127.0.0.1:$VERDICT_REDIS_PORT"
  redis-server "$REDIS_CONF" 9>&- || die "redis: redis-server failed to start (log: $REDIS_LOG)"
  for ((i = 0; i < 100; i++)); do
    if redis_running >/dev/null && port_open 127.0.0.1 "$VERDICT_REDIS_PORT"; then
      log "redis: running (pid $(cat "$REDIS_PIDFILE"))"
      return 0
    fi
    sleep 0.1
  done
  tail -n 30 "$REDIS_LOG" >&2 || true
  die "redis: did not come up within 10 s (log: $REDIS_LOG)"
}

redis_down() { stop_pid "$REDIS_PIDFILE" "$REDIS_PATTERN" redis 15; }

redis_status() {
  local pid
  if pid="$(redis_running)"; then
    echo "redis:    running   pid=$pid  127.0.0.1:$VERDICT_REDIS_PORT"
  else
    echo "redis:    stopped"
    return 1
  fi
}
