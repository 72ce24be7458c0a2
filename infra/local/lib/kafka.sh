# shellcheck shell=bash
# Apache Kafka: jars from Maven Central (mvn dependency:copy-dependencies),
# single-node KRaft (broker+controller) on 127.0.0.1.

# Pinned. 4.4.0 is listed in Maven Central's metadata but not resolvable
# (org.apache.kafka:kafka-tools-api:4.4.0 is missing), so 4.3.1 is the newest
# 4.x release that resolves. See infra/local/README.md.
: "${VERDICT_KAFKA_VERSION:=4.3.1}"
: "${VERDICT_KAFKA_PORT:=19092}"
: "${VERDICT_KAFKA_CONTROLLER_PORT:=19093}"
: "${VERDICT_KAFKA_HEAP_OPTS:=-Xms256m -Xmx768m}"

KAFKA_HOME="$VERDICT_INFRA_DIR/kafka/$VERDICT_KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME/libs"
KAFKA_CONF="$VERDICT_INFRA_DIR/kafka/server.properties"
KAFKA_CLUSTER_ID_FILE="$VERDICT_INFRA_DIR/kafka/cluster.id"
KAFKA_LOG_DIRS="$DATA_DIR/kafka"
KAFKA_PIDFILE="$RUN_DIR/kafka.pid"
KAFKA_LOG="$LOG_DIR/kafka.log"
KAFKA_OUT="$LOG_DIR/kafka.out"
KAFKA_PATTERN="kafka.Kafka $KAFKA_CONF"
KAFKA_READY_TIMEOUT=90

kafka_env_line() { echo "KAFKA_BROKERS=127.0.0.1:$VERDICT_KAFKA_PORT"; }

kafka_running() { pid_alive "$KAFKA_PIDFILE" "$KAFKA_PATTERN"; }

kafka_is_v3() { [[ "$VERDICT_KAFKA_VERSION" == 3.* ]]; }

kafka_log_opts() {
  if kafka_is_v3; then
    echo "-Dlog4j.configuration=file:$INFRA_LOCAL_DIR/kafka/log4j.properties"
  else
    echo "-Dlog4j2.configurationFile=$INFRA_LOCAL_DIR/kafka/log4j2.properties"
  fi
}

# Short-lived Java tools (StorageTool) on the broker classpath.
kafka_tool() {
  java -Xmx256m -Djava.awt.headless=true -Dkafka.logs.dir="$LOG_DIR" "$(kafka_log_opts)" \
    -cp "$KAFKA_LIBS/*" "$@"
}

kafka_ensure_libs() {
  [ -f "$KAFKA_LIBS/.complete" ] && return 0
  command -v java >/dev/null || die "kafka: java not found (need Java 17+)"
  command -v mvn >/dev/null || die "kafka: mvn not found (needed to fetch Kafka from Maven Central)"
  log "kafka: resolving org.apache.kafka:kafka_2.13:$VERDICT_KAFKA_VERSION from Maven Central into $KAFKA_LIBS"
  rm -rf "$KAFKA_LIBS"
  mkdir -p "$KAFKA_LIBS"
  local profile=()
  kafka_is_v3 && profile=(-Dkafka3)
  if ! mvn -B -q -Dstyle.color=never -f "$INFRA_LOCAL_DIR/kafka/pom.xml" "${profile[@]}" \
    -Dkafka.version="$VERDICT_KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIBS" \
    >"$LOG_DIR/kafka-mvn.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$LOG_DIR/kafka-mvn.log" | grep -v '^\s*$' | tail -n 20 >&2
    rm -rf "$KAFKA_LIBS"
    die "kafka: mvn could not resolve Kafka $VERDICT_KAFKA_VERSION (network / version?)"
  fi
  [ -f "$KAFKA_LIBS/kafka_2.13-$VERDICT_KAFKA_VERSION.jar" ] || die "kafka: kafka_2.13-$VERDICT_KAFKA_VERSION.jar missing after mvn"
  date -u +%FT%TZ >"$KAFKA_LIBS/.complete"
  log "kafka: $(find "$KAFKA_LIBS" -name '*.jar' | wc -l) jars ready"
}

kafka_write_conf() {
  mkdir -p "$(dirname "$KAFKA_CONF")" "$KAFKA_LOG_DIRS"
  cat >"$KAFKA_CONF" <<EOF
# Managed by infra/local/lib/kafka.sh — regenerated on every 'up'.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$VERDICT_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$VERDICT_KAFKA_PORT,CONTROLLER://127.0.0.1:$VERDICT_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$VERDICT_KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_LOG_DIRS
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=3
num.io.threads=4
log.retention.hours=168
log.segment.bytes=1073741824
EOF
}

kafka_format() {
  [ -f "$KAFKA_LOG_DIRS/meta.properties" ] && return 0
  local id
  if [ ! -s "$KAFKA_CLUSTER_ID_FILE" ]; then
    id="$(kafka_tool kafka.tools.StorageTool random-uuid 2>>"$KAFKA_OUT" | tail -n1)"
    [ -n "$id" ] || die "kafka: StorageTool random-uuid failed (see $KAFKA_OUT)"
    echo "$id" >"$KAFKA_CLUSTER_ID_FILE"
  fi
  id="$(cat "$KAFKA_CLUSTER_ID_FILE")"
  log "kafka: formatting storage $KAFKA_LOG_DIRS (cluster id $id)"
  if ! kafka_tool kafka.tools.StorageTool format -t "$id" -c "$KAFKA_CONF" >>"$KAFKA_OUT" 2>&1; then
    tail -n 30 "$KAFKA_OUT" >&2
    die "kafka: StorageTool format failed (see $KAFKA_OUT)"
  fi
}

kafka_up() {
  local pid i start_bytes=0
  if pid="$(kafka_running)"; then
    log "kafka: already running (pid $pid, 127.0.0.1:$VERDICT_KAFKA_PORT)"
    return 0
  fi
  clear_stale_pid "$KAFKA_PIDFILE" "$KAFKA_PATTERN"
  kafka_ensure_libs
  kafka_write_conf
  kafka_format
  for i in "$VERDICT_KAFKA_PORT" "$VERDICT_KAFKA_CONTROLLER_PORT"; do
    port_open 127.0.0.1 "$i" && die "kafka: port $i already in use by another process (set VERDICT_KAFKA_PORT / VERDICT_KAFKA_CONTROLLER_PORT)"
  done
  [ -f "$KAFKA_LOG" ] && start_bytes="$(stat -c %s "$KAFKA_LOG")"
  log "kafka: starting $VERDICT_KAFKA_VERSION on 127.0.0.1:$VERDICT_KAFKA_PORT (controller :$VERDICT_KAFKA_CONTROLLER_PORT)"
  echo "===== $(date -u +%FT%TZ) starting kafka $VERDICT_KAFKA_VERSION =====" >>"$KAFKA_OUT"
  # setsid: own session, so the broker survives the calling shell/terminal.
  # shellcheck disable=SC2086
  nohup setsid java $VERDICT_KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true -Dkafka.logs.dir="$LOG_DIR" "$(kafka_log_opts)" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_CONF" >>"$KAFKA_OUT" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$KAFKA_PIDFILE"
  for ((i = 0; i < KAFKA_READY_TIMEOUT * 5; i++)); do
    if ! proc_live "$pid"; then
      rm -f "$KAFKA_PIDFILE"
      tail -n 30 "$KAFKA_OUT" >&2
      [ -f "$KAFKA_LOG" ] && tail -n 30 "$KAFKA_LOG" >&2
      die "kafka: broker exited during startup (logs: $KAFKA_LOG, $KAFKA_OUT)"
    fi
    if port_open 127.0.0.1 "$VERDICT_KAFKA_PORT" &&
      tail -c +"$((start_bytes + 1))" "$KAFKA_LOG" 2>/dev/null | grep -q 'Kafka Server started'; then
      log "kafka: running (pid $pid) — ready after $((i / 5)) s"
      return 0
    fi
    sleep 0.2
  done
  tail -n 40 "$KAFKA_LOG" >&2 || true
  die "kafka: not ready within ${KAFKA_READY_TIMEOUT}s (pid $pid left running; logs: $KAFKA_LOG, $KAFKA_OUT; stop with infra/local/down kafka)"
}

kafka_down() { stop_pid "$KAFKA_PIDFILE" "$KAFKA_PATTERN" kafka 60; }

kafka_status() {
  local pid
  if pid="$(kafka_running)"; then
    echo "kafka:    running   pid=$pid  127.0.0.1:$VERDICT_KAFKA_PORT (controller :$VERDICT_KAFKA_CONTROLLER_PORT)  version=$VERDICT_KAFKA_VERSION"
  else
    echo "kafka:    stopped"
    return 1
  fi
}
