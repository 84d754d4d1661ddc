/// A tile read from its tileset and decoded, shared by every picture that draws it.
public final class DecodedTile: CachedTile {
    public enum Content: Sendable {
        case vector(VectorTile)
        /// An image tile's bytes, as stored (after any gzip layer), for the renderer to decode.
        case image([UInt8], TileFormat)
    }

    public let content: Content
    /// What the tile costs in memory, roughly: the ``TileCache`` budget counts this.
    public let estimatedBytes: Int

    public init(_ content: Content) {
        self.content = content
        switch content {
        case .vector(let tile): estimatedBytes = Self.estimatedBytes(of: tile)
        case .image(let bytes, _): estimatedBytes = Self.objectOverhead + bytes.count
        }
    }

    /// The vector tile, or `nil` for an image tile.
    public var vectorTile: VectorTile? {
        if case .vector(let tile) = content { return tile }
        return nil
    }

    /// An object header, an array's header, an enum's payload: a flat guess per item.
    static let objectOverhead = 64

    /// 8 bytes a point, 4 a tag or part start, each string's bytes, and ``objectOverhead`` for each
    /// layer, feature, key and value.
    static func estimatedBytes(of tile: VectorTile) -> Int {
        var total = objectOverhead
        for layer in tile.layers {
            total += objectOverhead + layer.name.utf8.count
            for key in layer.keys { total += objectOverhead + key.utf8.count }
            for value in layer.values {
                total += objectOverhead
                if case .string(let text) = value { total += text.utf8.count }
            }
            for feature in layer.features {
                total += objectOverhead + 8 * feature.points.count + 4 * (feature.tags.count + feature.parts.count)
            }
        }
        return total
    }
}
