#!/usr/bin/env bash
# PySpark 3.5 needs Java 11 or 17 on PATH. Say how to get it instead of failing deep in Spark.
if ! command -v java >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Java not found; installing openjdk-17-jre-headless for CI" >&2
    (apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless) >&2 || exit 1
  else
    echo "Java is required for the Spark tests (PySpark 3.5). Install it, e.g.:" >&2
    echo "    sudo apt-get install -y openjdk-17-jre-headless" >&2
    exit 1
  fi
fi
