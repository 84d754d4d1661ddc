extension VectorTile {
    /// Decodes a Mapbox Vector Tile 2.1 (after any gzip layer is removed; an empty buffer is a
    /// tile without layers).
    ///
    /// What is refused and what is skipped follows the mvt-fixtures suite's verdicts (`fatal`
    /// errors throw, `recoverable` ones drop the one bad feature or layer):
    /// - Thrown: broken protobuf (a varint, length or value past the end of its message, wire
    ///   types 3, 4, 6, 7, field number 0); a known field with the wrong wire type; a layer without
    ///   a name or a version, of a version other than 1 or 2, or with extent 0; a value with an
    ///   unknown field or not exactly one value; a tag pointing past the keys or values; geometry
    ///   whose commands break the spec's grammar (section 4.3.4: a count running past the data, a
    ///   MoveTo count other than 1 in a line or polygon, a LineTo with count 0, a ClosePath count
    ///   other than 1, a ClosePath outside a polygon, a ring of fewer than 3 points).
    /// - Skipped, counted in ``VectorTileLayer/skippedFeatures`` or ``VectorTile/skippedLayers``: a
    ///   feature without geometry, with an odd number of tags, with a geometry type past 3, or
    ///   with two geometry fields; a second layer with a name already used.
    ///
    /// Layers of version 1 are read with the version 2 rules (the rules the fixtures hold version 1
    /// layers to as well). Unknown fields of the tile, a layer or a feature are skipped, as the
    /// proto's `extensions` allow. Coordinates add up with wrapping 32-bit arithmetic, so a delta
    /// past `Int32` wraps instead of trapping (the fixtures call such tiles valid).
    ///
    /// Work and memory are bounded by the input: every count is checked against the bytes that
    /// remain before anything is reserved for it.
    ///
    /// - Throws: ``TileError`` with code `.malformedTile` whose message names the byte offset of
    ///   the problem (`at byte 57: …`). The caller adds the tileset and tile.
    public init(decoding bytes: [UInt8]) throws(TileError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(TileError) -> VectorTile in
            try VectorTileDecoder.decode(buffer)
        }
    }

    /// Decodes a tile from memory the caller owns; see ``init(decoding:)-([UInt8])``.
    ///
    /// - Throws: ``TileError`` with code `.malformedTile` naming the byte offset.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(TileError) {
        self = try VectorTileDecoder.decode(bytes.assumingMemoryBound(to: UInt8.self))
    }
}

/// The decoding passes behind ``VectorTile/init(decoding:)-([UInt8])``.
enum VectorTileDecoder {
    /// Field numbers of `vector_tile.proto` 2.1.
    enum TileField { static let layers: UInt64 = 3 }
    enum LayerField {
        static let name: UInt64 = 1
        static let features: UInt64 = 2
        static let keys: UInt64 = 3
        static let values: UInt64 = 4
        static let extent: UInt64 = 5
        static let version: UInt64 = 15
    }
    enum FeatureField {
        static let id: UInt64 = 1
        static let tags: UInt64 = 2
        static let type: UInt64 = 3
        static let geometry: UInt64 = 4
    }

    static func decode(_ buffer: UnsafeBufferPointer<UInt8>) throws(TileError) -> VectorTile {
        // Part starts are `Int32`; a point takes 2 bytes or more, so this bounds them.
        guard buffer.count <= Int(Int32.max) else {
            throw TileError(.malformedTile, "\(buffer.count) bytes: larger than any vector tile can be (2 GiB)")
        }
        var reader = ProtobufReader(buffer)
        var tile = VectorTile(layers: [])
        var names = Set<String>()
        while let field = try reader.nextField() {
            guard field.number == TileField.layers else {
                try reader.skip(field)
                continue
            }
            try ProtobufReader.expect(field, .lengthDelimited, "a layer")
            let range = try reader.lengthDelimited()
            let layer = try decodeLayer(buffer, range: range, offset: field.offset)
            // Two layers of one name are invalid (spec 4.1); the first one wins.
            if names.insert(layer.name).inserted {
                tile.layers.append(layer)
            } else {
                tile.skippedLayers += 1
            }
        }
        return tile
    }

    /// Reads a layer in two passes: the fields first (keys and values may follow the features
    /// that index them, and the version decides how features read), then the features.
    static func decodeLayer(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, offset: Int) throws(TileError) -> VectorTileLayer {
        var reader = ProtobufReader(buffer, range: range)
        var name: String?
        var version: UInt32?
        var extent: UInt32 = 4096
        var keys: [String] = []
        var values: [VectorTileValue] = []
        var features: [(range: Range<Int>, offset: Int)] = []
        while let field = try reader.nextField() {
            switch field.number {
            case LayerField.name:
                try ProtobufReader.expect(field, .lengthDelimited, "the layer name")
                name = reader.string(try reader.lengthDelimited())
            case LayerField.features:
                try ProtobufReader.expect(field, .lengthDelimited, "a feature")
                features.append((try reader.lengthDelimited(), field.offset))
            case LayerField.keys:
                try ProtobufReader.expect(field, .lengthDelimited, "a key")
                keys.append(reader.string(try reader.lengthDelimited()))
            case LayerField.values:
                try ProtobufReader.expect(field, .lengthDelimited, "a value")
                values.append(try decodeValue(buffer, range: try reader.lengthDelimited(), offset: field.offset))
            case LayerField.extent:
                try ProtobufReader.expect(field, .varint, "the extent")
                extent = try reader.varint32("the extent")
            case LayerField.version:
                try ProtobufReader.expect(field, .varint, "the version")
                version = try reader.varint32("the version")
            default:
                try reader.skip(field)
            }
        }
        guard let name else { throw ProtobufReader.failure(at: offset, "a layer without a name (spec 4.1: a layer MUST contain one)") }
        // `version` is a proto2 `required` field: a proto2 parser refuses a layer without it.
        guard let version else { throw ProtobufReader.failure(at: offset, "layer '\(name)' has no version field (it is required)") }
        guard version == 1 || version == 2 else {
            throw ProtobufReader.failure(at: offset, "layer '\(name)' has version \(version); only versions 1 and 2 exist")
        }
        guard extent > 0 else { throw ProtobufReader.failure(at: offset, "layer '\(name)' has extent 0") }

        var layer = VectorTileLayer(
            name: name, version: Int(version), extent: Int(extent), keys: keys, values: values, features: [])
        layer.features.reserveCapacity(features.count)
        var scratch = Scratch()
        for (range, featureOffset) in features {
            if let feature = try decodeFeature(
                buffer, range: range, offset: featureOffset, keyCount: keys.count, valueCount: values.count, scratch: &scratch)
            {
                layer.features.append(feature)
            } else {
                layer.skippedFeatures += 1
            }
        }
        return layer
    }

    /// Reads a `Value`, which must hold exactly one of the seven value fields and nothing else
    /// (spec 4.1; the fixtures call an extra or unknown value field fatal).
    static func decodeValue(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, offset: Int) throws(TileError) -> VectorTileValue {
        var reader = ProtobufReader(buffer, range: range)
        var value: VectorTileValue?
        while let field = try reader.nextField() {
            guard value == nil else {
                throw ProtobufReader.failure(at: field.offset, "a value with more than one field (it must hold exactly one)")
            }
            switch field.number {
            case 1:
                try ProtobufReader.expect(field, .lengthDelimited, "string_value")
                value = .string(reader.string(try reader.lengthDelimited()))
            case 2:
                try ProtobufReader.expect(field, .fixed32, "float_value")
                value = .float(Float(bitPattern: try reader.fixed32()))
            case 3:
                try ProtobufReader.expect(field, .fixed64, "double_value")
                value = .double(Double(bitPattern: try reader.fixed64()))
            case 4:
                try ProtobufReader.expect(field, .varint, "int_value")
                value = .int(Int64(bitPattern: try reader.varint()))
            case 5:
                try ProtobufReader.expect(field, .varint, "uint_value")
                value = .uint(try reader.varint())
            case 6:
                try ProtobufReader.expect(field, .varint, "sint_value")
                value = .sint(try reader.varint().zigzagDecoded)
            case 7:
                try ProtobufReader.expect(field, .varint, "bool_value")
                value = .bool(try reader.varint() != 0)
            default:
                throw ProtobufReader.failure(at: field.offset, "a value with unknown field \(field.number) (version 2 has fields 1-7 only)")
            }
        }
        guard let value else { throw ProtobufReader.failure(at: offset, "an empty value (it must hold exactly one field)") }
        return value
    }

    /// Reads a feature, or returns `nil` for a feature that is invalid in a way the fixtures call
    /// recoverable (no geometry, an odd tag count, an unknown geometry type, two geometry fields).
    static func decodeFeature(
        _ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, offset: Int, keyCount: Int, valueCount: Int, scratch: inout Scratch
    ) throws(TileError) -> VectorTileFeature? {
        var reader = ProtobufReader(buffer, range: range)
        var id: UInt64?
        var type: UInt64 = 0
        var tags: [UInt32] = []
        var geometry: Range<Int>?
        var geometryFields = 0
        while let field = try reader.nextField() {
            switch field.number {
            case FeatureField.id:
                try ProtobufReader.expect(field, .varint, "the feature id")
                id = try reader.varint()
            case FeatureField.tags:
                try ProtobufReader.expect(field, .lengthDelimited, "the tags")
                let packed = try reader.lengthDelimited()
                var tagReader = ProtobufReader(buffer, range: packed)
                // Each varint takes a byte at least: the range bounds the count.
                tags.reserveCapacity(tags.count + packed.count)
                while !tagReader.isAtEnd {
                    tags.append(try tagReader.varint32("a tag index"))
                }
            case FeatureField.type:
                try ProtobufReader.expect(field, .varint, "the geometry type")
                type = try reader.varint()
            case FeatureField.geometry:
                try ProtobufReader.expect(field, .lengthDelimited, "the geometry")
                geometry = try reader.lengthDelimited()
                geometryFields += 1
            default:
                try reader.skip(field)
            }
        }
        guard tags.count % 2 == 0 else { return nil }
        for (index, tag) in tags.enumerated() {
            let limit = index % 2 == 0 ? keyCount : valueCount
            guard Int(tag) < limit else {
                let table = index % 2 == 0 ? "keys" : "values"
                throw ProtobufReader.failure(at: offset, "a feature's tag \(index) points to \(table)[\(tag)], but the layer has \(limit)")
            }
        }
        guard let geometryType = VectorTileGeometryType(rawValue: Int(clamping: type)) else { return nil }
        guard let geometry, !geometry.isEmpty, geometryFields == 1 else { return nil }
        var decoder = GeometryDecoder(reader: ProtobufReader(buffer, range: geometry), type: geometryType)
        scratch.points.removeAll(keepingCapacity: true)
        scratch.parts.removeAll(keepingCapacity: true)
        try decoder.decode(into: &scratch.points, parts: &scratch.parts)
        // Copied out at their exact size: the tile cache counts what features hold.
        return VectorTileFeature(
            id: id, type: geometryType, tags: tags, points: Array(scratch.points[...]), parts: Array(scratch.parts[...]))
    }

    /// Buffers one layer's features decode into, reused so that each tile allocates them once.
    struct Scratch {
        var points: [SIMD2<Int32>] = []
        var parts: [Int32] = []
    }
}
