import Foundation
public import Logging
import Synchronization
import WorkFeedModel
public import WorkFeedTiles
public import WorkFeedStyle

/// The tilesets a worker draws maps from, and the tiles it keeps at hand: shared by every render
/// thread of a process.
///
/// Vector tilesets are drawn feature by feature in the map style; raster tilesets (PNG or JPEG
/// tiles) as pictures under them. Tiles are read, decoded and classified once (``MapTile``) and
/// kept in a ``TileCache`` bounded by `cacheBytes`, least recently used first out; tiles a tileset
/// does not have, and broken tiles, are remembered too, so neither is read again. A broken tile (bad gzip, bad protobuf,
/// geometry that runs past its data) is logged once with its tileset and `z/x/y`, counted, and
/// left out of the picture; nothing in a tile can stop a render.
public final class Basemap: Sendable {
    public let identity: BasemapIdentity
    /// The lowest and highest zoom of all tilesets; `nil` without tilesets.
    let zoomRange: ClosedRange<Int>?
    private let cache: TileCache<MapTile>
    private let logger: Logger

    /// What one position of the picture found.
    struct Hit {
        var source: Int
        /// The tile found: at the position's zoom, or a parent of it past the tileset's highest zoom.
        var coordinate: TileCoordinate
        var tile: MapTile
    }

    /// Opens every tileset; a worker calls this at start, so that a tileset that cannot be opened,
    /// or is not a tileset, stops it with the file or URL named.
    ///
    /// - Parameters:
    ///   - tilesetLocations: files, `https://` URLs or `s3://bucket/key` (``TilesetLocation``).
    ///   - access: how `s3://` tilesets are reached.
    ///   - cacheBytes: the most memory decoded tiles may take.
    /// - Throws: ``TileError`` naming the tileset or font that cannot be used.
    public convenience init(
        tilesetLocations: [String], access: TilesetAccess = TilesetAccess(), fontPath: String = BasemapDefaults.fontPath,
        fallbackFontPaths: [String] = BasemapDefaults.fallbackFontPaths, attributionOverride: String = "",
        cacheBytes: Int = 64 << 20, logger: Logger
    ) throws(TileError) {
        var sources: [any TileSource] = []
        for text in tilesetLocations {
            let source = try Tileset.open(Tileset.location(text), access: access)
            let path = source.info.path
            let format = source.info.format
            guard format.isEmpty || ["pbf", "mvt"].contains(format) || TileImage.tilesetFormats.contains(format) else {
                throw TileError(
                    .notATileset,
                    "its tiles are '\(format)': WorkFeed draws vector tilesets (format pbf) and raster ones (png, jpg)",
                    path: path)
            }
            sources.append(source)
        }
        let identity = try BasemapIdentity(
            tilesets: sources.map(\.info), fontPath: fontPath, fallbackFontPaths: fallbackFontPaths,
            attributionOverride: attributionOverride)
        for path in [fontPath] + fallbackFontPaths {
            do {
                // Checked here so that a font FreeType cannot read stops the worker at start.
                _ = try FontFace(path: path)
            } catch {
                throw TileError(.unreadable, "the map's font cannot be used: \(error.message)", path: path)
            }
        }
        self.init(sources: sources, identity: identity, cacheBytes: cacheBytes, logger: logger)
    }

    init(sources: [any TileSource], identity: BasemapIdentity, cacheBytes: Int, logger: Logger) {
        self.identity = identity
        self.logger = logger
        cache = TileCache(sources: sources, budgetBytes: cacheBytes, logger: logger)
        let low = sources.map(\.info.minZoom).min()
        let high = sources.map(\.info.maxZoom).max()
        if let low, let high, low <= high { zoomRange = low...high } else { zoomRange = nil }
    }

    /// The attribution line for pictures that drew these tilesets.
    func attribution(for drawn: Set<Int>) -> String {
        Attribution.combined(drawn.sorted().map { identity.attributions[$0] })
    }

    public var statistics: TileCacheStatistics { cache.statistics }

    /// The tile for position `coordinate`: from the first tileset, in configured order, that has
    /// it at that zoom or, past its highest zoom, has the parent tile at its highest zoom.
    ///
    /// Once a remote tileset could not give a tile for this picture
    /// (``RenderStatistics/unavailableTile``), nothing more is fetched: the picture will not be
    /// stored, and each further tile would wait for the same server.
    func tile(at coordinate: TileCoordinate, statistics: inout RenderStatistics) -> Hit? {
        guard statistics.unavailableTile == nil else { return nil }
        for (index, source) in cache.sources.enumerated() {
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

    /// The highest zoom of tileset `source`.
    func maxZoom(source: Int) -> Int { cache.sources[source].info.maxZoom }

    /// The tile from the cache, or read, decoded and classified; the time spent on a tile not at
    /// hand goes into `statistics` (reading and decoding, then classifying). `nil` when the
    /// tileset has no such tile, or it is broken (counted in `statistics`), or a remote tileset
    /// cannot give it now (the first such error kept in `statistics`, which fails the picture).
    func load(source: Int, at coordinate: TileCoordinate, statistics: inout RenderStatistics) -> MapTile? {
        guard statistics.unavailableTile == nil else { return nil }
        let clock = ContinuousClock()
        let started = clock.now
        var classifying = Duration.zero
        let lookup = cache.tile(source: source, at: coordinate) { content throws(TileError) in
            let decoded = clock.now
            defer {
                classifying = clock.now - decoded
                statistics.tileLoading += decoded - started
                statistics.tileClassifying += classifying
            }
            switch content {
            case .vector(let tile):
                let classified = MapTile(vectorTile: tile)
                if classified.brokenNames > 0 {
                    // Once per tile: the cache keeps it classified.
                    logger.warning(
                        "Names left out of a tile: name fields that are not text, are longer than \(TileSchema.maximumNameBytes) bytes or hold control characters",
                        metadata: [
                            "tileset": "\(identity.tilesets[source].path)", "tile": "\(coordinate.z)/\(coordinate.x)/\(coordinate.y)",
                            "names": "\(classified.brokenNames)",
                        ])
                }
                return classified
            case .image(let bytes, let format): return MapTile(image: try TileImage(bytes: bytes, format: format))
            }
        }
        switch lookup {
        case .tile(let tile): return tile
        case .absent: return nil
        case .broken:
            statistics.brokenTiles += 1
            return nil
        case .unavailable(let error):
            statistics.unavailableTile = error
            return nil
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
