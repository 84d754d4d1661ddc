import Dispatch
import Logging
import Synchronization
import Testing
import WorkFeedModel
import WorkFeedTiles

@Suite struct TileCacheTests {
    /// A tileset in memory that counts its reads.
    final class FakeSource: TileSource {
        let info: TilesetInfo
        private let tiles: [TileCoordinate: Result<[UInt8], TileError>]
        private let reads = Mutex<[TileCoordinate: Int]>([:])

        init(path: String = "/fake.mbtiles", _ tiles: [TileCoordinate: Result<[UInt8], TileError>]) {
            info = TilesetInfo(
                path: path, name: "fake", attribution: "", minZoom: 0, maxZoom: 14, bounds: nil, format: "", tileCount: tiles.count,
                identity: "")
            self.tiles = tiles
        }

        func tileData(at coordinate: TileCoordinate) throws(TileError) -> [UInt8]? {
            reads.withLock { $0[coordinate, default: 0] += 1 }
            return try tiles[coordinate]?.get()
        }

        func readCount(_ coordinate: TileCoordinate) -> Int { reads.withLock { $0[coordinate] ?? 0 } }
    }

    /// Collects what is logged.
    final class Recorder: Sendable {
        let entries = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])

        var logger: Logger {
            Logger(label: "test") { _ in Handler(recorder: self) }
        }

        struct Handler: LogHandler {
            let recorder: Recorder
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .debug

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                recorder.entries.withLock { $0.append((event.level, event.message.description, event.metadata ?? [:])) }
            }
        }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A "PNG" of exactly `size` bytes: the cache only sniffs it.
    static func png(_ size: Int, fill: UInt8 = 0) -> [UInt8] {
        pngSignature + [UInt8](repeating: fill, count: size - pngSignature.count)
    }

    static func c(_ x: Int) -> TileCoordinate { TileCoordinate(z: 14, x: x, y: 0) }

    @Test func keepsWithinItsBudgetAndEvictsTheLeastRecentlyUsed() {
        let tileBytes = 1_000
        let cost = tileBytes + 64
        let source = FakeSource(Dictionary(uniqueKeysWithValues: (0..<10).map { (Self.c($0), .success(Self.png(tileBytes))) }))
        let cache = TileCache<DecodedTile>(sources: [source], budgetBytes: 3 * cost, logger: Recorder().logger)

        for x in 0..<3 {
            guard case .tile(let tile) = cache.tile(source: 0, at: Self.c(x)) else {
                Issue.record("tile \(x) missing")
                return
            }
            #expect(tile.estimatedBytes == cost)
            if case .image(let bytes, let format) = tile.content {
                #expect(bytes.count == tileBytes && format == .png)
            }
        }
        #expect(cache.recency(source: 0) == [Self.c(2), Self.c(1), Self.c(0)])
        // Using 0 makes 1 the least recently used, so 3 evicts it.
        _ = cache.tile(source: 0, at: Self.c(0))
        _ = cache.tile(source: 0, at: Self.c(3))
        #expect(cache.recency(source: 0) == [Self.c(3), Self.c(0), Self.c(2)])
        var statistics = cache.statistics
        #expect(statistics.residentBytes == 3 * cost && statistics.entryCount == 3)
        #expect(statistics.hits == 1 && statistics.misses == 4 && statistics.evictions == 1)

        // 0 is still cached; 1 is read again.
        _ = cache.tile(source: 0, at: Self.c(0))
        _ = cache.tile(source: 0, at: Self.c(1))
        #expect(source.readCount(Self.c(0)) == 1)
        #expect(source.readCount(Self.c(1)) == 2)

        for x in 0..<10 { _ = cache.tile(source: 0, at: Self.c(x)) }
        statistics = cache.statistics
        #expect(statistics.residentBytes <= cache.budgetBytes)
        #expect(statistics.entryCount == 3)
    }

    @Test func realTilesStayWithinTheBudget() throws {
        var tiles: [TileCoordinate: Result<[UInt8], TileError>] = [:]
        for (index, tile) in try TestData.realWorldTiles().enumerated() {
            tiles[Self.c(index)] = .success(tile.bytes)
        }
        let source = FakeSource(tiles)
        let budget = 2 << 20
        let cache = TileCache<DecodedTile>(sources: [source], budgetBytes: budget, logger: Recorder().logger)
        var total = 0
        for index in 0..<tiles.count {
            guard case .tile(let tile) = cache.tile(source: 0, at: Self.c(index)) else {
                Issue.record("tile \(index) not decoded")
                continue
            }
            #expect(tile.vectorTile != nil)
            total += tile.estimatedBytes
            #expect(cache.statistics.residentBytes <= budget)
        }
        print("TileCache: \(tiles.count) real tiles estimated at \(total) bytes in a \(budget)-byte budget: \(cache.statistics)")
        #expect(total > budget)
        #expect(cache.statistics.evictions > 0)
    }

    @Test func aTileLargerThanTheBudgetIsReturnedButNotKept() {
        let source = FakeSource([Self.c(0): .success(Self.png(5_000))])
        let cache = TileCache<DecodedTile>(sources: [source], budgetBytes: 1_000, logger: Recorder().logger)
        for _ in 0..<2 {
            guard case .tile = cache.tile(source: 0, at: Self.c(0)) else {
                Issue.record("no tile")
                return
            }
        }
        #expect(cache.statistics.residentBytes == 0)
        #expect(source.readCount(Self.c(0)) == 2)
    }

    @Test func absentAndBrokenTilesAreRememberedAndABrokenOneLoggedOnce() throws {
        let recorder = Recorder()
        let source = FakeSource(
            path: "/srv/tiles/city.pmtiles",
            [
                Self.c(1): .success(Array("GIF89a....".utf8)),
                Self.c(2): .failure(TileError(.malformedTile, "gzip: corrupt compressed data")),
                Self.c(3): .success([0x1A, 0x7F]),  // a layer whose length runs past the end
            ])
        let cache = TileCache<DecodedTile>(sources: [source], budgetBytes: 1 << 20, logger: recorder.logger)
        for _ in 0..<5 {
            guard case .absent = cache.tile(source: 0, at: Self.c(0)) else {
                Issue.record("tile 0 is not absent")
                return
            }
            for x in 1...3 {
                guard case .broken(let error) = cache.tile(source: 0, at: Self.c(x)) else {
                    Issue.record("tile \(x) is not broken")
                    return
                }
                #expect(error.path == "/srv/tiles/city.pmtiles")
                #expect(error.tile == Self.c(x))
            }
        }
        for x in 0...3 { #expect(source.readCount(Self.c(x)) == 1) }
        let statistics = cache.statistics
        #expect(statistics.brokenTiles == 3)
        #expect(statistics.misses == 4 && statistics.hits == 16)

        let warnings = recorder.entries.withLock { $0.filter { $0.0 == .warning } }
        #expect(warnings.count == 3)
        let first = try #require(warnings.first)
        #expect(first.2["tileset"] == "/srv/tiles/city.pmtiles")
        #expect(first.2["tile"]?.description == "14/1/0")
        #expect(first.2["error"]?.description.contains("neither a vector tile nor an image: starts with 'GIF8'") == true)
        #expect(warnings[2].2["error"]?.description.hasPrefix("malformedTile: at byte 1: ") == true, "\(warnings[2].2)")
    }

    @Test func anUnknownSourceIsBrokenNotATrap() {
        let cache = TileCache<DecodedTile>(sources: [], budgetBytes: 1_000, logger: Recorder().logger)
        guard case .broken(let error) = cache.tile(source: 2, at: Self.c(0)) else {
            Issue.record("not broken")
            return
        }
        #expect(error.message.contains("no tileset number 2"))
    }

    /// Threads asking for overlapping tiles at once: the counters add up and the budget holds.
    @Test func staysConsistentUnderConcurrentUse() {
        let source = FakeSource(Dictionary(uniqueKeysWithValues: (0..<40).map { (Self.c($0), .success(Self.png(500 + $0))) }))
        let budget = 10_000
        let cache = TileCache<DecodedTile>(sources: [source], budgetBytes: budget, logger: Recorder().logger)
        let threads = 8
        let lookups = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var random = SplitMix64(seed: UInt64(thread))
            for _ in 0..<lookups {
                let x = Int.random(in: 0..<40, using: &random)
                guard case .tile(let tile) = cache.tile(source: 0, at: Self.c(x)), case .image(let bytes, _) = tile.content,
                    bytes.count == 500 + x
                else {
                    Issue.record("wrong tile for \(x)")
                    return
                }
            }
        }
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == threads * lookups)
        #expect(statistics.residentBytes <= budget)
        #expect(statistics.entryCount == cache.recency(source: 0).count)
        let expectedBytes = cache.recency(source: 0).reduce(0) { $0 + 500 + $1.x + 64 }
        #expect(statistics.residentBytes == expectedBytes)
    }
}
