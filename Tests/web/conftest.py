"""A real WorkFeed on loopback for the browser and API-contract tests: the built coordinator,
worker, gateway and workctl (.build/debug), an index and a cache in a temporary directory, and
workouts imported with workctl for the owner the tests' token names."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("WORKFEED_BIN", ROOT / ".build" / "debug"))
OWNER = "web-test-owner"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gpx(number):
    """A made-up run of 40 points near Heidelberg, different for each number and a day apart."""
    start = 1_700_000_000 + number * 86_400
    points = []
    for i in range(40):
        lat = 49.40 + number * 0.002 + i * 0.0004
        lon = 8.69 + (i % 7) * 0.0003
        t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + i * 15))
        points.append(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>{110 + i}</ele><time>{t}</time></trkpt>')
    return ('<?xml version="1.0"?>\n<gpx version="1.1" creator="workfeed-web-test" xmlns="http://www.topografix.com/GPX/1/1">'
            f'<trk><name>Run {number}</name><type>running</type><trkseg>{"".join(points)}</trkseg></trk></gpx>\n')


class System:
    def __init__(self, workouts, extra=()):
        self.dir = Path(tempfile.mkdtemp(prefix="workfeed-web-"))
        self.cache = self.dir / "cache"
        self.ports = {name: free_port() for name in ("workers", "control", "events", "http")}
        self.control = f"tcp://127.0.0.1:{self.ports['control']}"
        self.processes = {}
        env = dict(os.environ, WORKFEED_LISTEN_EVENTS=f"tcp://127.0.0.1:{self.ports['events']}", WORKFEED_METRICS_LISTEN="",
                   WORKFEED_PICTURES_SCALES="1,2", WORKFEED_LOG_LEVEL="warning")
        self.start("coordinator", [BIN / "workfeed-coordinator", "--index", self.dir / "index.sqlite", "--cache", self.cache,
                                   "--listen-workers", f"tcp://127.0.0.1:{self.ports['workers']}", "--listen-control", self.control], env)
        self.wait(lambda: self.workctl("status", "--timeout", "1", check=False).returncode == 0, "the coordinator")
        secret = self.dir / "token.secret"
        self.secret = secret
        self.workctl("token", "secret", "--out", secret)
        self.token = self.workctl("token", "create", "--owner", OWNER, "--expires", "1d", "--secret-file", secret).stdout.strip()
        files = self.dir / "workouts"
        files.mkdir()
        for number in range(workouts):
            (files / f"run-{number:03}.gpx").write_text(gpx(number))
        for path in extra:
            shutil.copy(path, files / Path(path).name)
        self.workctl("import", "--owner", OWNER, files)
        self.start("gateway", [BIN / "workfeed-gateway", "--listen", f"127.0.0.1:{self.ports['http']}", "--coordinator", self.control,
                               "--events", f"tcp://127.0.0.1:{self.ports['events']}", "--cache", self.cache],
                   dict(env, WORKFEED_TOKENS_SECRET_FILE=str(secret)))
        self.base = f"http://127.0.0.1:{self.ports['http']}"
        self.wait(lambda: self.ready(), "the gateway")

    def start(self, name, command, env):
        log = open(self.dir / f"{name}.log", "w")
        self.processes[name] = subprocess.Popen([str(part) for part in command], env=env, stdout=log, stderr=subprocess.STDOUT)

    def start_worker(self):
        self.start("worker", [BIN / "workfeed-worker", "--connect", f"tcp://127.0.0.1:{self.ports['workers']}", "--cache", self.cache,
                              "--threads", "2", "--name", "web-test-worker"], dict(os.environ, WORKFEED_LOG_LEVEL="warning"))

    def workctl(self, *arguments, check=True):
        return subprocess.run([str(BIN / "workctl"), *map(str, arguments), "--coordinator", self.control] if arguments[0] not in ("token",)
                              else [str(BIN / "workctl"), *map(str, arguments)], capture_output=True, text=True, check=check, timeout=120)

    def ready(self):
        try:
            with urllib.request.urlopen(self.base + "/readyz", timeout=2) as reply:
                return reply.status == 200
        except OSError:
            return False

    def wait(self, condition, what, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} did not start; logs in {self.dir}")

    def stop(self):
        for process in reversed(list(self.processes.values())):
            process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def system():
    started = System(workouts=int(os.environ.get("WORKFEED_WEB_WORKOUTS", "25")))
    yield started
    started.stop()
