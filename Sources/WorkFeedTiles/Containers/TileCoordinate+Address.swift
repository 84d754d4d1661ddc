extension TileCoordinate {
    /// The deepest zoom any reader here addresses: 2^30 tiles a side still fits 32-bit columns and
    /// PMTiles' 64-bit tile ids.
    static let maximumZoom: Int64 = 30

    /// Whether `z`, `x` and `y` address a tile at all.
    var isValid: Bool {
        z >= 0 && Int64(z) <= Self.maximumZoom && x >= 0 && y >= 0 && x < 1 << z && y < 1 << z
    }

    /// MBTiles' TMS row (counted from the south), or `nil` for an address that is no tile.
    var tmsRow: Int? {
        guard isValid else { return nil }
        return (1 << z) - 1 - y
    }
}
