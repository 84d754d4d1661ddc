# The two commands a new machine needs (each installs what it needs first):
#   make demo   run the whole path on embedded defaults, with sample workouts
#   make test   build and run the whole test suite
# Also: make chaos, the long chaos run (SIGKILLed workers and coordinator while 2,400 jobs render; docs/chaos.md)
#       make attack, what issues 13, 23 and 37 found tried again against the real programs (docs/security.md)
#       make bench-gateway, the gateway's HTTP benchmark against nginx (docs/benchmarks.md)
#       make bench-feed, the feed alone under wrk, to compare builds (docs/benchmarks.md)
#       make bench-summaries, GET /v1/summaries and the cost of summaries to imports (docs/benchmarks.md)
#       make bench-uploads, one owner uploading at its limit beside everyone else (docs/benchmarks.md)
#       make bench-first-views, first views from a bucket beside a flood of made-up keys (docs/benchmarks.md)
#       make bench-planet, a 10 GB planet-shaped PMTiles archive against the small ones (PLANET=PATH, docs/benchmarks.md)
#       make profile-maps, where a map picture's CPU time goes at each scale (docs/benchmarks.md)
#       make compare-maps COMPARE_BASE=DIR, map pictures' CPU against another build's workfeed-bench
.PHONY: demo test chaos attack build release bench bench-maps bench-planet profile-maps compare-maps bench-gateway bench-feed bench-summaries bench-uploads bench-first-views bench-metrics-http clean

demo:
	deploy/demo.sh

# The format check (.swift-format; `swift format format -i -r Sources Tests` fixes it), the check that
# Package.swift declares exactly what each target imports (deploy/check-imports.py), the Swift
# suite, then the browser and API-contract tests (Tests/web: headless Chromium, schemathesis),
# then the benchmark scripts at a small size on the debug build (BENCH_SMOKE=1), so that a
# script that rots fails the build (issue 27; their figures are no benchmark).
# The gateway's suites run on their own: its HTTP handlers run on Swift's cooperative pool (two
# threads here), which the end-to-end tests that block on processes and sockets would otherwise
# hold for long stretches while a gateway test waits for an answer.
test:
	deploy/install-deps.sh
	deploy/install-test-deps.sh
	swift format lint --strict -r Sources Tests
	deploy/check-imports.py
	swift build --build-tests
	swift test --skip-build --skip '^GatewayTests\.'
	swift test --skip-build --filter '^GatewayTests\.'
	var/test-python/bin/python -m pytest -q Tests/web
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-maps.sh
	BENCH_SMOKE=1 BENCH_ROUNDS=1 BENCH_BIN="$$(swift build --show-bin-path)" BENCH_BASE_BIN="$$(swift build --show-bin-path)" deploy/bench-maps.sh
	COMPARE_SMOKE=1 COMPARE_BIN="$$(swift build --show-bin-path)" COMPARE_BASE="$$(swift build --show-bin-path)" deploy/compare-maps.sh
	INDEX=postgres BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-maps.sh
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-gateway.sh
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-summaries.sh
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-uploads.sh
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-first-views.sh
	BENCH_SMOKE=1 BENCH_BIN="$$(swift build --show-bin-path)" deploy/bench-planet.sh

chaos:
	deploy/install-deps.sh
	deploy/chaos.sh

attack:
	deploy/install-deps.sh
	deploy/install-test-deps.sh
	deploy/attack.sh

build:
	deploy/install-deps.sh
	swift build

release:
	deploy/install-deps.sh
	swift build -c release

bench:
	deploy/install-deps.sh
	swift run -c release workfeed-bench

# Map pictures a second end to end: coordinator, two workers, the Heidelberg tileset (docs/benchmarks.md).
bench-maps:
	deploy/bench-maps.sh

# A planet-shaped PMTiles archive (z0-14, 3.6 million tiles, 10.4 GB, made by deploy/make-planet.py at
# PLANET and removed after unless PLANET_KEEP=1) against the small archives, from the file and over a
# loopback HTTP server: opening, lookups, pictures, coordinator and worker start (docs/benchmarks.md).
PLANET ?= /tmp/workfeed-planet.pmtiles
bench-planet:
	deploy/install-deps.sh
	PLANET="$(PLANET)" deploy/bench-planet.sh

# Where a map picture's CPU time goes at @1x, @2x and @3x: the renderer's clocks and perf's samples
# grouped by what does the work (docs/benchmarks.md, "Where a picture's time goes").
profile-maps:
	deploy/profile-maps.sh

# The map group of workfeed-bench from this build and COMPARE_BASE's in alternated rounds: CPU a
# picture at @1x-@3x, light and dark, the ratio and the bytes (docs/benchmarks.md, issue 39).
compare-maps:
	deploy/compare-maps.sh

# The gateway under wrk: pictures against nginx, the feed over 100,000 workouts, picture requests
# during a bulk regeneration (docs/benchmarks.md, "Gateway").
bench-gateway:
	deploy/bench-gateway.sh

# /metrics by hand, by hand with NIO linked, and on Hummingbird: size, start, memory (docs/benchmarks.md).
bench-metrics-http:
	deploy/bench-metrics-http.sh

# GET /v1/feed alone under wrk over 20,000 workouts (docs/benchmarks.md, "One shape for a workout");
# `deploy/bench-feed.sh DIR` runs another build's binaries.
bench-feed:
	deploy/bench-feed.sh

# GET /v1/summaries (a year of weekly buckets, 20,000 workouts) and what summaries cost an import.
bench-summaries:
	deploy/bench-summaries.sh

# One owner's 30 multipart uploads of a 15 MB GPX at once (BENCH_AT_ONCE=2: two at a time), while
# /healthz and another owner's feed are timed, and the gateway's peak memory (docs/benchmarks.md).
bench-uploads:
	deploy/bench-uploads.sh

# First views from a bucket (moto), alone and during a flood of made-up keys from one client and
# from sixteen, and uncached pictures a second (docs/benchmarks.md, "First views from a bucket").
bench-first-views:
	deploy/bench-first-views.sh

clean:
	rm -rf .build var
