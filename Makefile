# The two commands a new machine needs (each installs what it needs first):
#   make demo   run the whole path on embedded defaults, with sample workouts
#   make test   build and run the whole test suite
.PHONY: demo test build release bench clean

demo:
	deploy/demo.sh

test:
	deploy/install-deps.sh
	swift build --build-tests
	swift test --skip-build

build:
	deploy/install-deps.sh
	swift build

release:
	deploy/install-deps.sh
	swift build -c release

bench:
	deploy/install-deps.sh
	swift run -c release workfeed-bench

clean:
	rm -rf .build var
