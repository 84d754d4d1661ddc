import Foundation

/// Paths into the repository's shared test data (`Tests/Data`, origins in `Tests/Data/SOURCES.md`)
/// and the demo's basemap, found from this file's own path.
enum TestData {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WorkFeedTilesTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        repositoryRoot.appendingPathComponent(relative).path
    }

    static let fixtures = path("Tests/Data/basemap/mvt-fixtures/fixtures")
    static let realWorld = path("Tests/Data/basemap/mvt-fixtures/real-world")
    static let liechtensteinMBTiles = path("Tests/Data/basemap/tilesets/liechtenstein-z10-14.mbtiles")
    static let liechtensteinPMTiles = path("Tests/Data/basemap/tilesets/liechtenstein-z10-14.pmtiles")
    static let monacoMBTiles = path("Tests/Data/basemap/tilesets/monaco-z10-14.mbtiles")
    static let heidelbergMBTiles = path("deploy/basemap/heidelberg.mbtiles")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The names in a directory, sorted.
    static func contents(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// The real-world tiles as (name, bytes), sorted by name.
    static func realWorldTiles() throws -> [(name: String, bytes: [UInt8])] {
        var tiles: [(String, [UInt8])] = []
        for city in contents(realWorld) {
            for file in contents(realWorld + "/" + city) where file.hasSuffix(".mvt") {
                tiles.append(("\(city)/\(file)", try bytes(realWorld + "/" + city + "/" + file)))
            }
        }
        return tiles
    }

    /// A fresh directory under the system's temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-tiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }
}

/// Measures a block's wall-clock time.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    return (result, clock.now - start)
}
