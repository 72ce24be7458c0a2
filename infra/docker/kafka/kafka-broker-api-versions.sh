#!/bin/bash
# The tool of the same name in apache/kafka, which compose's health check runs.
exec java -Xmx128m -XX:TieredStopAtLevel=1 -cp '/opt/kafka/libs/*' \
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties \
  org.apache.kafka.tools.BrokerApiVersionsCommand "$@"
