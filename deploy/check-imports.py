#!/usr/bin/env python3
"""Checks that Package.swift declares exactly what each Swift target imports.

For every regular, executable and test target it reads the `import` lines of the target's Swift
files (any attribute, access level or kind: `@testable import`, `public import`,
`import struct M.T`) and compares the modules with the target's declared dependencies: a module
imported but not declared, or declared but never imported, is reported with the target's name and
the module's, and the script exits 1. Modules of the toolchain (Foundation, Glibc, Testing, ...)
need no declaration and are ignored.

A product dependency counts as the module of the same name, which is true of every product
WorkFeed uses; `PRODUCT_MODULES` lists the exceptions if one ever differs.

Usage: deploy/check-imports.py [--package-dir DIR] [--manifest-json FILE]
(without --manifest-json it asks `swift package dump-package`). `make test` runs it before the build.
"""

import argparse
import json
import os
import re
import subprocess
import sys

# Modules that come with the toolchain or the system and need no entry in Package.swift.
TOOLCHAIN_MODULES = {
    "Swift", "_Concurrency", "_StringProcessing", "SwiftShims", "Foundation", "FoundationEssentials",
    "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "CoreFoundation",
    "Dispatch", "Synchronization", "Observation", "Distributed", "RegexBuilder", "Testing", "XCTest",
    "Glibc", "Musl", "Darwin", "Android", "Bionic", "WinSDK", "ucrt", "os",
}

# Products whose module is not named like the product (product name -> module names).
PRODUCT_MODULES: dict[str, list[str]] = {}

IMPORT_LINE = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private|open)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func|actor)\s+)?"
    r"([A-Za-z_][A-Za-z_0-9]*)"
)


def imports_of(directory):
    """Returns {module: first "file:line" that imports it} for the Swift files under directory."""
    found = {}
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            in_block_comment = False
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, start=1):
                    if in_block_comment:
                        if "*/" in line:
                            in_block_comment = False
                            line = line.split("*/", 1)[1]
                        else:
                            continue
                    if line.lstrip().startswith("/*") and "*/" not in line:
                        in_block_comment = True
                        continue
                    match = IMPORT_LINE.match(line)
                    if match:
                        found.setdefault(match.group(1), f"{path}:{number}")
    return found


def declared_modules(target):
    """The module names a target's dependencies make importable."""
    modules = set()
    for dependency in target.get("dependencies", []):
        (kind, values), = dependency.items()
        name = values[0]
        if kind == "product":
            modules.update(PRODUCT_MODULES.get(name, [name]))
        else:  # "byName" or "target"
            modules.add(name)
    return modules


def target_directory(package_dir, target):
    if target.get("path"):
        return os.path.join(package_dir, target["path"])
    folder = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(package_dir, folder, target["name"])


def check(package_dir, manifest):
    problems = []
    for target in manifest["targets"]:
        if target["type"] not in ("regular", "executable", "test"):
            continue
        directory = target_directory(package_dir, target)
        imported = {
            module: where for module, where in imports_of(directory).items() if module not in TOOLCHAIN_MODULES
        }
        declared = declared_modules(target)
        for module in sorted(set(imported) - declared):
            where = os.path.relpath(imported[module], package_dir)
            problems.append(
                f"target {target['name']} imports {module} ({where}) but does not declare it in Package.swift"
            )
        for module in sorted(declared - set(imported)):
            problems.append(f"target {target['name']} declares {module} in Package.swift but never imports it")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package-dir", default=".", help="the package's root (default: .)")
    parser.add_argument("--manifest-json", help="the output of `swift package dump-package`, read instead of running it")
    arguments = parser.parse_args()
    if arguments.manifest_json:
        with open(arguments.manifest_json, encoding="utf-8") as file:
            manifest = json.load(file)
    else:
        output = subprocess.run(
            ["swift", "package", "--package-path", arguments.package_dir, "dump-package"],
            check=True, capture_output=True, text=True,
        ).stdout
        manifest = json.loads(output)
    problems = check(arguments.package_dir, manifest)
    for problem in problems:
        print(f"check-imports: {problem}", file=sys.stderr)
    if problems:
        print(
            f"check-imports: {len(problems)} difference(s) between Package.swift and the imports: "
            "declare each module a target imports, and nothing else",
            file=sys.stderr,
        )
        return 1
    print("check-imports: every target declares exactly what it imports", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
