import Foundation

/// Finds the WorkFeed executables the chaos tests start as real processes.
///
/// Searched in order: `WORKFEED_BIN_DIR`; the build directory this test bundle was built into (the
/// folder holding `WorkFeed_ChaosTests.resources`, which is where SwiftPM also puts the
/// executables); the folder of the test runner; `.build/debug` of the package this file belongs to.
/// A missing executable is an error that says what to do; it never makes a test pass silently.
enum Binaries {
    static let names = ["workfeed-coordinator", "workfeed-worker", "workctl"]

    struct Missing: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "the WorkFeed executables (\(Binaries.names.joined(separator: ", "))) were not found in any of: "
                + searched.joined(separator: ", ")
                + ". Build them first (`swift build --build-tests`, which `make test` does) or set WORKFEED_BIN_DIR to their folder."
        }
    }

    /// The folder holding all three executables.
    static func directory() throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["WORKFEED_BIN_DIR"], !override.isEmpty {
            // An explicit choice is the only one tried: a wrong path must not fall back to other builds.
            let url = URL(fileURLWithPath: override, isDirectory: true)
            guard containsAll(url) else { throw Missing(searched: ["WORKFEED_BIN_DIR=\(override)"]) }
            return url
        }
        if let resources = Bundle.module.resourceURL {
            candidates.append(resources.deletingLastPathComponent())
            candidates.append(resources.deletingLastPathComponent().deletingLastPathComponent())
        }
        candidates.append(Bundle.module.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        // Tests/ChaosTests/Support/Binaries.swift -> the package root.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug"))
        candidates.append(package.appendingPathComponent(".build/release"))
        var seen = Set<String>()
        for candidate in candidates where seen.insert(candidate.standardizedFileURL.path).inserted {
            if containsAll(candidate) { return candidate.standardizedFileURL }
        }
        throw Missing(searched: Array(seen))
    }

    static func url(_ name: String) throws -> URL {
        try directory().appendingPathComponent(name)
    }

    private static func containsAll(_ directory: URL) -> Bool {
        names.allSatisfy { FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0).path) }
    }
}
