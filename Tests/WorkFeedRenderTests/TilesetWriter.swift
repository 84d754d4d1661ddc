import CTurboJPEG
import Foundation
import GRDB
import WorkFeedTiles

/// Writes small MBTiles files for tests that need tiles no fixture has: raster tiles, tiles of
/// the Protomaps schema, damaged tiles.
struct TilesetWriter {
    let path: String
    private let queue: DatabaseQueue

    /// Creates an MBTiles 1.3 file with `metadata` (name, format, minzoom, maxzoom, bounds, ...).
    init(path: String, metadata: [String: String]) throws {
        self.path = path
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            try db.execute(sql: "CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)")
            for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
                try db.execute(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)", arguments: [name, value])
            }
        }
    }

    /// Stores `bytes` as tile `coordinate` (XYZ; MBTiles stores the row from the south).
    func put(_ coordinate: TileCoordinate, _ bytes: [UInt8]) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)",
                arguments: [coordinate.z, coordinate.x, (1 << coordinate.z) - 1 - coordinate.y, Data(bytes)])
        }
    }

    /// The tiles at zoom `z` that cover the box around (`latitude`, `longitude`), `reach` degrees
    /// each way.
    static func tiles(z: Int, latitude: Double, longitude: Double, reach: Double) -> [TileCoordinate] {
        let n = Double(1 << z)
        func column(_ longitude: Double) -> Int { Int(((longitude + 180) / 360 * n).rounded(.down)) }
        func row(_ latitude: Double) -> Int {
            let radians = latitude * .pi / 180
            return Int(((1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * n).rounded(.down))
        }
        var result: [TileCoordinate] = []
        for y in row(latitude + reach)...row(latitude - reach) {
            for x in column(longitude - reach)...column(longitude + reach) {
                result.append(TileCoordinate(z: z, x: x, y: y))
            }
        }
        return result
    }

    /// A JPEG of `rgb` rows (3 bytes a pixel), at quality 95 without chroma subsampling.
    static func jpeg(rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard let handle = tjInitCompress() else { return [] }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer { pixels in
            tjCompress2(
                handle, pixels.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buffer, &size,
                Int32(TJSAMP_444.rawValue), 95, TJFLAG_ACCURATEDCT)
        }
        defer { tjFree(buffer) }
        guard result == 0, let buffer else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

/// A minimal Mapbox Vector Tile 2.1 encoder: layers of string-tagged features with one
/// geometry each, enough to make tiles of a schema no fixture has.
struct VectorTileWriter {
    struct Feature {
        enum Geometry {
            /// Closed rings (exterior clockwise on screen, as the spec has it), in tile units.
            case polygon([[(Int, Int)]])
            case line([(Int, Int)])
            case point((Int, Int))
        }

        var tags: [String: String]
        var geometry: Geometry
    }

    private var layers: [[UInt8]] = []

    mutating func addLayer(_ name: String, extent: Int = 4096, features: [Feature]) {
        var keys: [String] = []
        var values: [String] = []
        var body: [UInt8] = []
        body.field(15, varint: 2)
        body.field(1, bytes: Array(name.utf8))
        for feature in features {
            var tags: [UInt64] = []
            for (key, value) in feature.tags.sorted(by: { $0.key < $1.key }) {
                let k =
                    keys.firstIndex(of: key)
                    ?? {
                        keys.append(key); return keys.count - 1
                    }()
                let v =
                    values.firstIndex(of: value)
                    ?? {
                        values.append(value); return values.count - 1
                    }()
                tags += [UInt64(k), UInt64(v)]
            }
            var commands: [UInt64] = []
            var cursor = (0, 0)
            func delta(_ point: (Int, Int)) {
                commands.append(zigzag(point.0 - cursor.0))
                commands.append(zigzag(point.1 - cursor.1))
                cursor = point
            }
            let type: UInt64
            switch feature.geometry {
            case .line(let points):
                type = 2
                commands.append(1 | 1 << 3)
                delta(points[0])
                commands.append(2 | UInt64(points.count - 1) << 3)
                for point in points.dropFirst() { delta(point) }
            case .point(let point):
                type = 1
                commands.append(1 | 1 << 3)
                delta(point)
            case .polygon(let rings):
                type = 3
                for ring in rings {
                    commands.append(1 | 1 << 3)
                    delta(ring[0])
                    commands.append(2 | UInt64(ring.count - 1) << 3)
                    for point in ring.dropFirst() { delta(point) }
                    commands.append(7 | 1 << 3)
                }
            }
            var encoded: [UInt8] = []
            encoded.field(2, packed: tags)
            encoded.field(3, varint: type)
            encoded.field(4, packed: commands)
            body.field(2, bytes: encoded)
        }
        for key in keys { body.field(3, bytes: Array(key.utf8)) }
        for value in values {
            var encoded: [UInt8] = []
            encoded.field(1, bytes: Array(value.utf8))
            body.field(4, bytes: encoded)
        }
        body.field(5, varint: UInt64(extent))
        var layer: [UInt8] = []
        layer.field(3, bytes: body)
        layers.append(layer)
    }

    var bytes: [UInt8] { layers.flatMap { $0 } }

    private func zigzag(_ value: Int) -> UInt64 {
        UInt64(bitPattern: Int64((value << 1) ^ (value >> 63)))
    }
}

extension [UInt8] {
    fileprivate mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    fileprivate mutating func field(_ number: UInt64, varint value: UInt64) {
        varint(number << 3)
        varint(value)
    }

    fileprivate mutating func field(_ number: UInt64, bytes: [UInt8]) {
        varint(number << 3 | 2)
        varint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }

    fileprivate mutating func field(_ number: UInt64, packed values: [UInt64]) {
        var encoded: [UInt8] = []
        for value in values { encoded.varint(value) }
        field(number, bytes: encoded)
    }
}
