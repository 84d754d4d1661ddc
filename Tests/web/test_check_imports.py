"""deploy/check-imports.py, which `make test` runs before the build: on a made-up package it names
the target and the module of each import not declared and each dependency not imported, and exits 1;
on a package that matches, and on WorkFeed's own Package.swift, it exits 0."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "check-imports.py"


def run(package_dir, targets):
    manifest = package_dir / "manifest.json"
    manifest.write_text(json.dumps({"targets": targets}))
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--package-dir", str(package_dir), "--manifest-json", str(manifest)],
        capture_output=True, text=True,
    )


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_names_target_and_module_both_ways(tmp_path):
    write(tmp_path / "Sources" / "Lib" / "A.swift", "import Foundation\n@testable import Logging\n")
    write(tmp_path / "Sources" / "Lib" / "Sub" / "B.swift", "public import struct Crypto.SHA256\n/*\nimport Hidden\n*/\n")
    write(tmp_path / "Sources" / "tool" / "main.swift", "import Lib\n#if canImport(Glibc)\nimport Glibc\n#endif\n")
    write(tmp_path / "Tests" / "LibTests" / "T.swift", "import Testing\nimport Lib\n")
    result = run(tmp_path, [
        {"name": "Lib", "type": "regular", "dependencies": [{"product": ["Crypto", "swift-crypto", None, None]}]},
        {"name": "tool", "type": "executable", "dependencies": [{"byName": ["Lib", None]}, {"byName": ["Yams", None]}]},
        {"name": "LibTests", "type": "test", "dependencies": [{"target": ["Lib", None]}]},
        {"name": "CThing", "type": "system", "dependencies": []},
    ])
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert any("target Lib imports Logging (Sources/Lib/A.swift:2) but does not declare it" in line for line in lines)
    assert any("target tool declares Yams in Package.swift but never imports it" in line for line in lines)
    assert "Hidden" not in result.stderr and "Glibc" not in result.stderr and "LibTests" not in result.stderr
    assert "2 difference(s)" in result.stderr


def test_a_matching_package_passes(tmp_path):
    write(tmp_path / "Sources" / "Lib" / "A.swift", "internal import Logging\n")
    result = run(tmp_path, [{"name": "Lib", "type": "regular", "dependencies": [{"product": ["Logging", "swift-log", None, None]}]}])
    assert result.returncode == 0, result.stderr


def test_workfeeds_package_matches_its_imports():
    result = subprocess.run([sys.executable, str(SCRIPT), "--package-dir", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
