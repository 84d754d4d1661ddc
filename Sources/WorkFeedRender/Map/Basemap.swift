import Foundation
public import Logging
import Synchronization
public import WorkFeedTiles

/// The tilesets a worker draws maps from, and the tiles it keeps at hand: shared by every render
/// thread of a process.
///
/// Tiles are read, decoded and classified once (``MapTile``) and kept in a cache bounded by
/// `cacheBytes`, least recently used first out; tiles a tileset does not have, and broken tiles,
/// are remembered too, so neither is read again. A broken tile (bad gzip, bad protobuf,
/// geometry that runs past its data) is logged once with its tileset and `z/x/y`, counted, and
/// left out of the picture; nothing in a tile can stop a render.
public final class Basemap: Sendable {
    public let identity: BasemapIdentity
    let sources: [any TileSource]
    /// The lowest and highest zoom of all tilesets; `nil` without tilesets.
    let zoomRange: ClosedRange<Int>?
    private let cacheBytes: Int
    private let logger: Logger
    private let state = Mutex(CacheState())

    /// What one position of the picture found.
    struct Hit {
        var source: Int
        /// The tile found: at the position's zoom, or a parent of it past the tileset's highest zoom.
        var coordinate: TileCoordinate
        var tile: MapTile
    }

    private enum Entry {
        case tile(MapTile)
        case absent
        case broken
    }

    private struct Key: Hashable {
        var source: Int
        var coordinate: TileCoordinate
    }

    private struct CacheState {
        var entries: [Key: (entry: Entry, bytes: Int, used: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var statistics = BasemapStatistics()
    }

    /// Opens every tileset; a worker calls this at start, so that a tileset that cannot be opened,
    /// or is not a tileset, stops it with the file named.
    ///
    /// - Parameters:
    ///   - cacheBytes: the most memory decoded tiles may take.
    /// - Throws: ``TileError`` naming the tileset or font that cannot be used.
    public convenience init(
        tilesetPaths: [String], fontPath: String = BasemapIdentity.defaultFontPath, attributionOverride: String = "",
        cacheBytes: Int = 64 << 20, logger: Logger
    ) throws(TileError) {
        var sources: [any TileSource] = []
        for path in tilesetPaths {
            let source = try Tileset.open(path: path)
            guard source.info.format.isEmpty || ["pbf", "mvt"].contains(source.info.format) else {
                throw TileError(
                    .notATileset, "its tiles are '\(source.info.format)': WorkFeed draws vector tilesets (format pbf)",
                    path: path)
            }
            sources.append(source)
        }
        let identity = try BasemapIdentity(
            tilesets: sources.map(\.info), fontPath: fontPath, attributionOverride: attributionOverride)
        do {
            // Checked here so that a font FreeType cannot read stops the worker at start.
            _ = try FontFace(path: fontPath)
        } catch {
            throw TileError(.unreadable, "the attribution font cannot be used: \(error.message)", path: fontPath)
        }
        self.init(sources: sources, identity: identity, cacheBytes: cacheBytes, logger: logger)
    }

    init(sources: [any TileSource], identity: BasemapIdentity, cacheBytes: Int, logger: Logger) {
        self.sources = sources
        self.identity = identity
        self.cacheBytes = max(cacheBytes, 0)
        self.logger = logger
        let low = sources.map(\.info.minZoom).min()
        let high = sources.map(\.info.maxZoom).max()
        if let low, let high, low <= high { zoomRange = low...high } else { zoomRange = nil }
    }

    /// The attribution line for pictures that drew these tilesets.
    func attribution(for drawn: Set<Int>) -> String {
        Attribution.combined(drawn.sorted().map { identity.attributions[$0] })
    }

    public var statistics: BasemapStatistics {
        state.withLock { $0.statistics }
    }

    /// The tile for position `coordinate`: from the first tileset, in configured order, that has
    /// it at that zoom or, past its highest zoom, has the parent tile at its highest zoom.
    func tile(at coordinate: TileCoordinate, statistics: inout RenderStatistics) -> Hit? {
        for (index, source) in sources.enumerated() {
            let info = source.info
            let z = min(coordinate.z, info.maxZoom)
            guard z >= info.minZoom else { continue }
            let shift = coordinate.z - z
            let parent = TileCoordinate(z: z, x: coordinate.x >> shift, y: coordinate.y >> shift)
            if let bounds = info.bounds, !Self.tile(parent, intersects: bounds) { continue }
            if let tile = load(source: index, at: parent, statistics: &statistics) {
                return Hit(source: index, coordinate: parent, tile: tile)
            }
        }
        return nil
    }

    private func load(source: Int, at coordinate: TileCoordinate, statistics: inout RenderStatistics) -> MapTile? {
        let key = Key(source: source, coordinate: coordinate)
        let cached: Entry? = state.withLock { state in
            state.clock += 1
            guard var found = state.entries[key] else {
                state.statistics.misses += 1
                return nil
            }
            state.statistics.hits += 1
            found.used = state.clock
            state.entries[key] = found
            return found.entry
        }
        if let cached {
            if case .tile(let tile) = cached { return tile }
            return nil
        }

        let clock = ContinuousClock()
        let started = clock.now
        let entry: Entry
        var failure: TileError?
        do {
            if let bytes = try sources[source].tileData(at: coordinate) {
                let read = clock.now
                statistics.tileReading += read - started
                let vector = try VectorTile(decoding: bytes)
                entry = .tile(MapTile(vectorTile: vector))
                statistics.tileDecoding += clock.now - read
            } else {
                entry = .absent
            }
        } catch {
            failure = error
            entry = .broken
        }
        if let failure {
            statistics.brokenTiles += 1
            logger.warning(
                "broken map tile skipped",
                metadata: [
                    "tileset": "\(sources[source].info.path)", "tile": "\(coordinate)", "error": "\(failure.message)",
                ])
        }
        let bytes: Int
        switch entry {
        case .tile(let tile): bytes = tile.byteCount
        case .absent, .broken: bytes = 64
        }
        state.withLock { state in
            if case .broken = entry { state.statistics.brokenTiles += 1 }
            state.statistics.decoded += 1
            state.clock += 1
            if let old = state.entries[key] { state.bytes -= old.bytes }
            state.entries[key] = (entry, bytes, state.clock)
            state.bytes += bytes
            evict(&state)
            state.statistics.residentBytes = state.bytes
            state.statistics.residentTiles = state.entries.count
        }
        if case .tile(let tile) = entry { return tile }
        return nil
    }

    /// Drops least recently used entries until the cache fits its budget.
    private func evict(_ state: inout CacheState) {
        guard state.bytes > cacheBytes else { return }
        let oldestFirst = state.entries.sorted { $0.value.used < $1.value.used }
        for (key, value) in oldestFirst where state.bytes > cacheBytes {
            state.entries[key] = nil
            state.bytes -= value.bytes
            state.statistics.evictions += 1
        }
    }

    /// Whether tile `coordinate` overlaps `bounds` (degrees), with a little slack for rounding.
    static func tile(_ coordinate: TileCoordinate, intersects bounds: GeoBounds) -> Bool {
        let n = Double(1 << coordinate.z)
        let west = Double(coordinate.x) / n * 360 - 180
        let east = Double(coordinate.x + 1) / n * 360 - 180
        func latitude(_ y: Double) -> Double {
            let k = Double.pi * (1 - 2 * y / n)
            return atan(sinh(k)) * 180 / .pi
        }
        let north = latitude(Double(coordinate.y))
        let south = latitude(Double(coordinate.y + 1))
        let slack = 1e-6
        return east >= bounds.west - slack && west <= bounds.east + slack && north >= bounds.south - slack
            && south <= bounds.north + slack
    }
}

/// What a ``Basemap``'s tile cache has done since the process started.
public struct BasemapStatistics: Sendable, Hashable {
    public var hits = 0
    public var misses = 0
    /// Tiles read from a tileset (found, absent or broken).
    public var decoded = 0
    public var brokenTiles = 0
    public var evictions = 0
    public var residentBytes = 0
    public var residentTiles = 0

    public init() {}
}
