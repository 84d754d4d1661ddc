#!/usr/bin/env bash
# /metrics served three ways, in release builds (docs/benchmarks.md, "The /metrics endpoint"):
# hand-metrics (WorkFeedMetrics' MetricsServer, as the coordinator and the workers serve it),
# nio-hand-metrics (the same with NIOPosix linked and its thread pool started, as the daemons are
# since BlockingWork), hb-metrics (Hummingbird 2, the gateway's HTTP stack). Prints each binary's
# size (and stripped), then the time from exec to the first answered scrape, the resident memory
# and a scrape's time (measure.py). Takes about 10 minutes the first time (a release build of
# swift-nio and Hummingbird).
set -euo pipefail
cd "$(dirname "$0")/bench-metrics-http"
swift build -c release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for binary in hand-metrics nio-hand-metrics hb-metrics; do
  cp ".build/release/$binary" "$out/$binary"
  strip "$out/$binary"
  echo "$binary: $(stat -c %s ".build/release/$binary") bytes, $(stat -c %s "$out/$binary") stripped"
done
python3 measure.py .build/release/hand-metrics .build/release/nio-hand-metrics .build/release/hb-metrics
