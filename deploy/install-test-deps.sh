#!/usr/bin/env bash
# Installs what the browser and API-contract tests need (Tests/web), when any is missing:
# Debian's chromium and chromium-driver, and a Python environment in var/test-python with pytest,
# selenium and schemathesis from PyPI (pinned), and moto[server] (a standalone S3-compatible server
# the S3 picture store's tests start on loopback), and Debian's postgresql, whose programs the
# PostgreSQL index's tests start a server of their own with (WorkFeedTesting's PostgresTestServer),
# and Debian's tesseract-ocr, which reads the share cards' words back in their tests (ShareCardTests).
# Used by `make test`; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(chromium chromium-driver postgresql tesseract-ocr tesseract-ocr-eng)
python3 -c 'import venv, ensurepip' 2>/dev/null || packages+=(python3 python3-venv)
deploy/install-deps.sh "${packages[@]}"

requirements="Tests/web/requirements.txt"
stamp="var/test-python/.installed"
if [ ! -x var/test-python/bin/python ] || ! cmp -s "$requirements" "$stamp"; then
  echo "install-test-deps: Python test environment in var/test-python" >&2
  python3 -m venv var/test-python
  var/test-python/bin/python -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
