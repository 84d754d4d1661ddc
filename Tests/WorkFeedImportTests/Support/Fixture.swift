import Foundation
import WorkFeedModel
import Testing

/// The test resources in `Fixtures/` (see `Fixtures/SOURCES.md` for where each file comes from).
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "fixture not found: \(path)" }
    }

    /// The fixture's URL; `path` is relative to `Fixtures/`, e.g. `gpx-hr/strava_run_2018_gpxtpx-hr.gpx`.
    static func url(_ path: String) throws -> URL {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else { throw Missing(path: "Fixtures") }
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: path) }
        return url
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(path)))
    }

    /// Every fixture in a folder, as paths relative to `Fixtures/`.
    static func files(in folder: String, extension pathExtension: String) -> [String] {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
        else { return [] }
        return names.filter { $0.hasSuffix("." + pathExtension) }.sorted().map { "\(folder)/\($0)" }
    }
}

extension ImportedWorkout {
    /// The workout without the file's bytes, which only the in-memory paths keep: for comparing
    /// what a streamed read and a whole read made of the same file.
    var withoutOriginal: ImportedWorkout {
        var copy = self
        copy.original = nil
        return copy
    }
}
