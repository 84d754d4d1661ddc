import Foundation

/// The few keys of a tileset's JSON metadata (PMTiles' metadata section, MBTiles' `json` row)
/// that ``TilesetInfo`` holds. Everything else in it is left alone.
struct TilesetMetadataJSON {
    var name = ""
    var attribution = ""
    /// The `id`s of TileJSON's `vector_layers`, in order.
    var vectorLayers: [String] = []

    init() {}

    /// `nil` unless `bytes` are a JSON object; keys of the wrong type are treated as absent.
    init?(_ bytes: [UInt8]) {
        guard let object = Self.object(bytes) else { return nil }
        name = object["name"] as? String ?? ""
        attribution = object["attribution"] as? String ?? ""
        vectorLayers = Self.vectorLayerIDs(object)
    }

    /// The vector layer ids in an MBTiles `json` row; empty when it is not JSON or lists none.
    static func vectorLayerIDs(_ bytes: [UInt8]) -> [String] {
        object(bytes).map(vectorLayerIDs) ?? []
    }

    /// From `vector_layers`, or from a `json` string holding it: PMTiles' converter from MBTiles
    /// (`pmtiles-convert`) copies MBTiles' `json` row there as it is.
    private static func vectorLayerIDs(_ object: [String: Any]) -> [String] {
        if object["vector_layers"] == nil, let nested = object["json"] as? String {
            return vectorLayerIDs(Array(nested.utf8))
        }
        guard let layers = object["vector_layers"] as? [Any] else { return [] }
        return layers.compactMap { ($0 as? [String: Any])?["id"] as? String }
    }

    private static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
