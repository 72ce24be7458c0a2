#!/bin/bash
# Writes server.properties from the environment as apache/kafka does (KAFKA_FOO_BAR=x is foo.bar=x;
# `__` stands for `_` and `___` for `-`), formats the log directory once with CLUSTER_ID, runs the broker.
set -euo pipefail
conf=/opt/kafka/config/server.properties
: >"$conf"
while IFS='=' read -r name value; do
  case "$name" in
    KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_LOG4J_OPTS | KAFKA_VERSION) continue ;;
    KAFKA_*) ;;
    *) continue ;;
  esac
  key="${name#KAFKA_}"
  key="${key//___/-}"
  key="${key//__/@}"
  key="${key//_/.}"
  key="${key//@/_}"
  printf '%s=%s\n' "${key,,}" "$value" >>"$conf"
done < <(env)
grep -q '^log.dirs=' "$conf" || echo 'log.dirs=/var/lib/kafka/data' >>"$conf"
logdir="$(sed -n 's/^log.dirs=//p' "$conf" | cut -d, -f1)"
# shellcheck disable=SC2206
heap=(${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m})
common=(-Djava.awt.headless=true -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties -cp '/opt/kafka/libs/*')
if [ ! -f "$logdir/meta.properties" ]; then
  [ -n "${CLUSTER_ID:-}" ] || { echo "CLUSTER_ID is required to format $logdir" >&2; exit 1; }
  java -Xmx256m "${common[@]}" kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$conf" --ignore-formatted
fi
exec java "${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "${common[@]}" kafka.Kafka "$conf"
