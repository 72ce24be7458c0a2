# shellcheck shell=bash
# Shared helpers for infra/local/{up,down,status}. Sourced, not executed.

INFRA_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INFRA_LOCAL_DIR="$(cd "$INFRA_LIB_DIR/.." && pwd)"
VERDICT_REPO_ROOT="$(cd "$INFRA_LOCAL_DIR/../.." && pwd)"

: "${VERDICT_INFRA_DIR:=$VERDICT_REPO_ROOT/.infra}"
VERDICT_INFRA_DIR="$(mkdir -p "$VERDICT_INFRA_DIR" && cd "$VERDICT_INFRA_DIR" && pwd)"
export VERDICT_INFRA_DIR

RUN_DIR="$VERDICT_INFRA_DIR/run"
LOG_DIR="$VERDICT_INFRA_DIR/log"
DATA_DIR="$VERDICT_INFRA_DIR/data"

ALL_COMPONENTS=(postgres redis kafka apicurio)

log() { printf '[infra] %s\n' "$*" >&2; }
warn() { printf '[infra] WARNING: %s\n' "$*" >&2; }
die() {
  printf '[infra] ERROR: %s\n' "$*" >&2
  exit 1
}

ensure_dirs() {
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$DATA_DIR"
}

# Serialise concurrent up/down invocations on the same VERDICT_INFRA_DIR.
take_lock() {
  ensure_dirs
  exec 9>"$RUN_DIR/.lock"
  if ! flock -w 300 9; then
    die "could not acquire $RUN_DIR/.lock within 300 s (another up/down running?)"
  fi
}

# Normalise component names given on the command line into COMPONENTS=(...).
parse_components() {
  COMPONENTS=()
  if [ "$#" -eq 0 ]; then
    COMPONENTS=("${ALL_COMPONENTS[@]}")
    return
  fi
  local a
  for a in "$@"; do
    case "$a" in
      postgres | postgresql | pg) COMPONENTS+=(postgres) ;;
      redis) COMPONENTS+=(redis) ;;
      kafka) COMPONENTS+=(kafka) ;;
      apicurio | registry | schema-registry) COMPONENTS+=(apicurio) ;;
      docker) COMPONENTS+=(docker) ;;
      all) COMPONENTS=("${ALL_COMPONENTS[@]}") ;;
      -h | --help)
        echo "usage: $(basename "$0") [postgres|redis|kafka|apicurio|docker ...]   (default: all but docker)"
        exit 0
        ;;
      *) die "unknown component '$a' (expected: postgres, redis, kafka, apicurio, docker)" ;;
    esac
  done
}

# The registry keeps its schemas in the local PostgreSQL: bringing it up brings PostgreSQL up first.
with_dependencies() {
  local c needs_pg=0 has_pg=0
  for c in "${COMPONENTS[@]}"; do
    [ "$c" = apicurio ] && needs_pg=1
    [ "$c" = postgres ] && has_pg=1
  done
  if [ "$needs_pg" = 1 ] && [ "$has_pg" = 0 ]; then COMPONENTS=(postgres "${COMPONENTS[@]}"); fi
  return 0
}

# proc_live PID -> 0 when PID exists and is not a zombie (in containers whose
# PID 1 does not reap orphans, killed daemons linger as zombies).
proc_live() {
  local pid="$1" state
  kill -0 "$pid" 2>/dev/null || return 1
  if [ -r "/proc/$pid/stat" ]; then
    state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
    [ "$state" != "Z" ] && [ "$state" != "X" ] || return 1
  fi
}

# pid_alive PIDFILE PATTERN -> prints the pid and returns 0 when the process
# named in PIDFILE exists and its command line contains PATTERN (guards
# against pid reuse after a reboot / crash).
pid_alive() {
  local pidfile="$1" pattern="$2" pid
  [ -s "$pidfile" ] || return 1
  pid="$(head -n1 "$pidfile" | tr -dc '0-9')"
  [ -n "$pid" ] || return 1
  proc_live "$pid" || return 1
  if [ -r "/proc/$pid/cmdline" ]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$pattern" || return 1
  fi
  echo "$pid"
}

# Remove a pid file whose process is gone.
clear_stale_pid() {
  local pidfile="$1" pattern="$2"
  if [ -e "$pidfile" ] && ! pid_alive "$pidfile" "$pattern" >/dev/null; then
    log "removing stale pid file $pidfile"
    rm -f "$pidfile"
  fi
}

port_open() {
  local host="$1" port="$2"
  (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# stop_pid PIDFILE PATTERN NAME TIMEOUT_S
stop_pid() {
  local pidfile="$1" pattern="$2" name="$3" timeout="${4:-30}" pid i
  if ! pid="$(pid_alive "$pidfile" "$pattern")"; then
    if [ -e "$pidfile" ]; then
      log "$name: not running (stale pid file removed)"
      rm -f "$pidfile"
    else
      log "$name: not running"
    fi
    return 0
  fi
  log "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    proc_live "$pid" || break
    sleep 0.1
  done
  if proc_live "$pid"; then
    warn "$name: pid $pid still alive after ${timeout}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  log "$name: stopped"
}

# Install Debian packages (apt) only when asked; we run as root, no sudo.
apt_install() {
  [ "$(id -u)" -eq 0 ] || die "installing $* needs root (apt-get); install it manually and re-run"
  command -v apt-get >/dev/null || die "apt-get not found; install $* manually"
  log "installing Debian package(s): $* (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "$@" >&2
}

# Make every ancestor of DIR traversable (o+x) so a non-root user can reach it.
ensure_traversable_for() {
  local user="$1" dir="$2" d path=""
  runuser -u "$user" -- test -x "$dir" 2>/dev/null && return 0
  local IFS=/
  for d in $dir; do
    [ -n "$d" ] || continue
    path="$path/$d"
    [ -d "$path" ] || break
    if ! runuser -u "$user" -- test -x "$path" 2>/dev/null; then
      log "chmod o+x $path (so user '$user' can reach $dir)"
      chmod o+x "$path"
    fi
  done
}

env_line_file() { echo "$VERDICT_INFRA_DIR/env"; }
