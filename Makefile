# The two commands a new machine needs (each installs what it needs first):
#   make demo   run the whole path on embedded defaults, with sample workouts
#   make test   build and run the whole test suite
# Also: make chaos, the long chaos run (SIGKILLed workers and coordinator while 2,400 jobs render; docs/chaos.md)
#       make attack, what issue 13 found tried again against the real programs (docs/security.md)
.PHONY: demo test chaos attack build release bench bench-maps clean

demo:
	deploy/demo.sh

test:
	deploy/install-deps.sh
	swift build --build-tests
	swift test --skip-build

chaos:
	deploy/install-deps.sh
	deploy/chaos.sh

attack:
	deploy/install-deps.sh
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

clean:
	rm -rf .build var
