# shellcheck shell=bash
# A Docker engine of our own, for the container tests (testcontainers) and the image builds: Debian's
# docker.io, started with its data, state, pid file and socket under $VERDICT_INFRA_DIR/docker so that it
# neither needs nor touches a system engine. Published ports bind to 127.0.0.1. Not part of a bare `up`:
# only `up docker` (npm test asks for it when the container suite runs) starts it.
#
# When an engine already answers on /var/run/docker.sock, that one is used and never stopped.

DOCKER_DIR="$VERDICT_INFRA_DIR/docker"
DOCKER_SOCKET="$DOCKER_DIR/docker.sock"
DOCKER_PIDFILE="$RUN_DIR/docker.pid"
DOCKER_LOG="$LOG_DIR/dockerd.log"
DOCKER_SYSTEM_SOCKET=/var/run/docker.sock
# The data root on the command line tells our engine from another instance's.
DOCKER_PATTERN="--data-root $DOCKER_DIR/data "
DOCKER_READY_TIMEOUT=60

docker_answers() { docker -H "unix://$1" version >/dev/null 2>&1; }

docker_system_engine() { [ -S "$DOCKER_SYSTEM_SOCKET" ] && docker_answers "$DOCKER_SYSTEM_SOCKET"; }

docker_running() { pid_alive "$DOCKER_PIDFILE" "$DOCKER_PATTERN"; }

docker_socket() {
  if docker_running >/dev/null; then echo "$DOCKER_SOCKET"; else echo "$DOCKER_SYSTEM_SOCKET"; fi
}

# testcontainers sees this machine as a container (it has /.dockerenv) and would look for the engine's
# ports on the bridge gateway: the host override sends it to localhost, where they are published. Ryuk's
# image cannot be pulled here, and `down` removes whatever the tests left on our engine.
docker_env_lines() {
  echo "DOCKER_HOST=unix://$(docker_socket)"
  echo "TESTCONTAINERS_HOST_OVERRIDE=localhost"
  echo "TESTCONTAINERS_RYUK_DISABLED=true"
}

docker_ensure_installed() {
  if command -v dockerd >/dev/null && command -v docker >/dev/null && command -v iptables >/dev/null; then
    return 0
  fi
  apt_install docker.io iptables
  command -v dockerd >/dev/null || die "docker: still no dockerd after apt-get install docker.io"
}

docker_up() {
  local pid i
  if pid="$(docker_running)"; then
    log "docker: already running (pid $pid, unix://$DOCKER_SOCKET)"
    return 0
  fi
  if docker_system_engine; then
    log "docker: using the engine already running at unix://$DOCKER_SYSTEM_SOCKET (left alone by down)"
    return 0
  fi
  clear_stale_pid "$DOCKER_PIDFILE" "$DOCKER_PATTERN"
  docker_ensure_installed
  mkdir -p "$DOCKER_DIR/data" "$DOCKER_DIR/exec"
  rm -f "$DOCKER_SOCKET"
  log "docker: starting dockerd (data $DOCKER_DIR/data, socket unix://$DOCKER_SOCKET)"
  echo "===== $(date -u +%FT%TZ) starting dockerd =====" >>"$DOCKER_LOG"
  # --ip: ports published without an address bind to loopback only.
  nohup setsid dockerd --data-root "$DOCKER_DIR/data" --exec-root "$DOCKER_DIR/exec" \
    --pidfile "$DOCKER_DIR/dockerd.pid" -H "unix://$DOCKER_SOCKET" --ip 127.0.0.1 \
    >>"$DOCKER_LOG" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$DOCKER_PIDFILE"
  for ((i = 0; i < DOCKER_READY_TIMEOUT * 5; i++)); do
    if ! proc_live "$pid"; then
      rm -f "$DOCKER_PIDFILE"
      tail -n 30 "$DOCKER_LOG" >&2
      die "docker: dockerd exited during startup (log: $DOCKER_LOG)"
    fi
    if docker_answers "$DOCKER_SOCKET"; then
      log "docker: running (pid $pid) — ready after $((i / 5)) s"
      return 0
    fi
    sleep 0.2
  done
  tail -n 30 "$DOCKER_LOG" >&2 || true
  die "docker: not ready within ${DOCKER_READY_TIMEOUT}s (pid $pid left running; log: $DOCKER_LOG)"
}

docker_down() {
  local ids
  if docker_running >/dev/null; then
    # Containers outlive a dockerd that is killed; removing them first leaves nothing behind whatever
    # happens next. Images stay: they are the build cache of the next run.
    ids="$(docker -H "unix://$DOCKER_SOCKET" ps -aq 2>/dev/null || true)"
    if [ -n "$ids" ]; then
      log "docker: removing $(echo "$ids" | wc -l) container(s)"
      # shellcheck disable=SC2086
      docker -H "unix://$DOCKER_SOCKET" rm -f -v $ids >/dev/null 2>&1 || true
    fi
    docker -H "unix://$DOCKER_SOCKET" network prune -f >/dev/null 2>&1 || true
  fi
  stop_pid "$DOCKER_PIDFILE" "$DOCKER_PATTERN" docker 30
}

docker_status() {
  local pid
  if pid="$(docker_running)"; then
    echo "docker:   running   pid=$pid  unix://$DOCKER_SOCKET  data=$DOCKER_DIR/data"
  elif docker_system_engine; then
    echo "docker:   using the system engine at unix://$DOCKER_SYSTEM_SOCKET"
  else
    echo "docker:   stopped"
    return 1
  fi
}
