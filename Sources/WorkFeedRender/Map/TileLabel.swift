import WorkFeedModel
import WorkFeedTiles
import WorkFeedStyle

/// A name a tile offers the map: what it names, its text in the local script and in Latin letters,
/// how important the tile says it is, and where it goes, in tile units (0...1 across the tile).
struct TileLabel: Sendable {
    var kind: MapLabelKind
    /// The local name (`name`); may be empty when the tile has only a Latin form.
    var name: String
    /// `name:latin`, else `name_en` / `name:en`, else `name_int`; may be empty.
    var latin: String
    /// Smaller is more important: the tile's `rank` (OpenMapTiles) or `population_rank`
    /// (Protomaps, inverted), else the road class or water kind's own order.
    var rank: Int
    /// One point for a name placed at a point, several for a name placed along a line.
    var points: [SIMD2<Float>]
    var isLine: Bool { points.count > 1 }

    /// The text to draw, before fonts are asked: the local name, else the Latin one.
    var preferred: String { name.isEmpty ? latin : name }
}

extension TileSchema {
    /// Longest name kept from a tile, in UTF-8 bytes: longer ones are not map names.
    static let maximumNameBytes = 256

    /// Reads the names of one layer: which features are labels, of what kind, and their text.
    ///
    /// Keys are looked up once per layer; values once per value of the layer's table, so reading a
    /// feature is a few integer comparisons. A name that is not a string, is empty, is longer than
    /// ``maximumNameBytes`` or holds control characters is skipped: a broken name field costs its
    /// label, never the tile.
    struct LabelReader {
        private let layerName: String
        private let nameKey: UInt32?
        private let latinKeys: [UInt32]
        private let classKey: UInt32?
        private let detailKey: UInt32?
        private let rankKey: UInt32?
        private let populationRankKey: UInt32?
        private let tunnelKeys: [UInt32]
        private let values: [VectorTileValue]

        /// `nil` for layers that carry no names WorkFeed draws.
        init?(layer: VectorTileLayer) {
            guard Self.layers.contains(layer.name) else { return nil }
            func key(_ names: String...) -> UInt32? {
                for name in names {
                    if let index = layer.keys.firstIndex(of: name) { return UInt32(truncatingIfNeeded: index) }
                }
                return nil
            }
            layerName = layer.name
            nameKey = key("name")
            latinKeys = [key("name:latin"), key("name_en", "name:en"), key("name_int")].compactMap { $0 }
            classKey = key("class", "kind")
            detailKey = key("subclass", "kind_detail")
            rankKey = key("rank")
            populationRankKey = key("population_rank")
            tunnelKeys = [key("brunnel"), key("is_tunnel")].compactMap { $0 }
            guard nameKey != nil || !latinKeys.isEmpty else { return nil }
            values = layer.values
        }

        /// The layers of both schemas that hold names.
        static let layers: Set<String> = [
            "place", "transportation_name", "water_name", "waterway", "park", "poi", "mountain_peak",  // OpenMapTiles
            "places", "roads", "water", "pois",  // Protomaps
        ]

        /// The labels `feature` gives, in tile units (`unit` is one over the layer's extent): one,
        /// or one per part of a line (the scene joins the pieces of a street again).
        ///
        /// - Parameter broken: counts name fields that cannot be a name (not a string, too long,
        ///   control characters): the label is left out, and the tile's reader says so.
        func labels(of feature: VectorTileFeature, unit: Float, broken: inout Int) -> [TileLabel] {
            var name = ""
            var latin = ""
            var latinPriority = Int.max
            var className = ""
            var detail = ""
            var rank: Int?
            var populationRank: Int?
            let tags = feature.tags
            var index = 0
            while index + 1 < tags.count {
                let key = tags[index]
                let valueIndex = Int(tags[index + 1])
                index += 2
                guard valueIndex < values.count else { continue }
                let value = values[valueIndex]
                if key == nameKey {
                    name = Self.text(value) ?? ""
                    if name.isEmpty, value != .string("") { broken += 1 }
                } else if let priority = latinKeys.firstIndex(of: key), priority < latinPriority {
                    guard let text = Self.text(value) else {
                        if value != .string("") { broken += 1 }
                        continue
                    }
                    latin = text
                    latinPriority = priority
                } else if key == classKey {
                    className = Self.text(value) ?? ""
                } else if key == detailKey {
                    detail = Self.text(value) ?? ""
                } else if key == rankKey {
                    rank = Self.integer(value)
                } else if key == populationRankKey {
                    populationRank = Self.integer(value)
                } else if tunnelKeys.contains(key), TileSchema.isTunnel(value) {
                    // The map leaves tunnels out: their names would name nothing drawn.
                    return []
                }
            }
            guard !name.isEmpty || !latin.isEmpty else { return [] }
            guard let (kind, order) = classify(className: className, detail: detail, type: feature.type) else { return [] }
            // Protomaps ranks populations upwards (a capital is 15 or more); OpenMapTiles ranks
            // importance downwards from 1.
            let importance = rank ?? populationRank.map { max(0, 20 - $0) } ?? order
            func label(_ points: [SIMD2<Float>]) -> TileLabel {
                TileLabel(kind: kind, name: name, latin: latin, rank: importance, points: points)
            }
            switch feature.type {
            case .point:
                guard let first = feature.points.first else { return [] }
                return [label([SIMD2(Float(first.x), Float(first.y)) * unit])]
            case .lineString:
                return feature.parts.indices.compactMap { part in
                    let run = feature.part(part)
                    return run.count >= 2 ? label(run.map { SIMD2(Float($0.x), Float($0.y)) * unit }) : nil
                }
            case .polygon:
                guard let anchor = Self.labelPoint(feature) else { return [] }
                return [label([anchor * unit])]
            case .unknown:
                return []
            }
        }

        /// The kind of name a feature of this layer with this class and detail is, and an order
        /// within its kind for tiles that give no rank.
        private func classify(className: String, detail: String, type: VectorTileGeometryType) -> (MapLabelKind, Int)? {
            switch layerName {
            case "place":
                return Self.place(className)
            case "places":
                switch className {
                case "locality": return Self.place(detail.isEmpty ? "town" : detail)
                case "neighbourhood", "macrohood": return Self.place(detail.isEmpty ? "neighbourhood" : detail)
                default: return nil
                }
            case "transportation_name", "roads":
                let road =
                    layerName == "roads"
                    ? TileSchema.protomapsRoadDetail(detail) ?? TileSchema.protomapsRoadKind(className)
                    : TileSchema.transportationClass(className.hasSuffix("_construction") ? String(className.dropLast(13)) : className)
                guard type == .lineString, let road, let roadClass = road.road else { return nil }
                let order = RoadClass.allCases.count - 1 - (RoadClass.allCases.firstIndex(of: roadClass) ?? 0)
                switch roadClass {
                case .motorway, .trunk, .primary, .secondary, .tertiary: return (.majorRoad, order)
                case .minor, .service: return (.minorRoad, order)
                case .path, .track: return (.path, order)
                }
            case "waterway":
                guard type == .lineString else { return nil }
                switch className {
                case "river": return (.river, 0)
                case "canal": return (.river, 1)
                case "stream", "drain", "ditch": return (.river, 5)
                default: return nil
                }
            case "water", "water_name":
                if type == .lineString {
                    switch className {
                    case "river": return (.river, 0)
                    case "canal": return (.river, 1)
                    case "stream", "drain", "ditch": return (.river, 5)
                    default: return layerName == "water_name" ? (.water, 2) : nil
                    }
                }
                return (.water, className == "ocean" || className == "sea" ? 0 : 2)
            case "park":
                return (.park, 5)
            case "poi", "pois":
                switch detail.isEmpty ? className : detail {
                case "park", "garden", "nature_reserve", "national_park", "forest", "wood", "protected_area": return (.park, 5)
                case "peak", "volcano": return (.peak, 5)
                default:
                    // Protomaps puts the kind in `kind`, OpenMapTiles the class in `class` and
                    // the detail in `subclass`: try the class too.
                    switch className {
                    case "park", "forest", "nature_reserve", "national_park": return (.park, 5)
                    case "peak", "volcano": return (.peak, 5)
                    default: return nil
                    }
                }
            case "mountain_peak":
                return className == "peak" || className == "volcano" || className.isEmpty ? (.peak, 5) : nil
            default:
                return nil
            }
        }

        private static func place(_ className: String) -> (MapLabelKind, Int)? {
            switch className {
            case "city": (.city, 5)
            case "town": (.town, 5)
            case "village": (.village, 5)
            case "suburb", "borough": (.suburb, 5)
            case "quarter", "neighbourhood", "macrohood": (.neighbourhood, 5)
            case "hamlet": (.hamlet, 5)
            default: nil
            }
        }

        /// A usable name: a string of 1 to ``maximumNameBytes`` bytes without control characters.
        private static func text(_ value: VectorTileValue) -> String? {
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= TileSchema.maximumNameBytes else { return nil }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
            return text.trimmingCharactersOfWhitespace()
        }

        private static func integer(_ value: VectorTileValue) -> Int? {
            switch value {
            case .int(let n), .sint(let n): return Int(clamping: n)
            case .uint(let n): return Int(clamping: n)
            case .float(let x) where x.isFinite: return Int(max(min(x, 1e6), -1e6))
            case .double(let x) where x.isFinite: return Int(max(min(x, 1e6), -1e6))
            default: return nil
            }
        }

        /// Where a named area's name goes: the area-weighted centroid of its largest ring, or that
        /// ring's first vertex when the centroid falls outside it (a crescent-shaped park).
        private static func labelPoint(_ feature: VectorTileFeature) -> SIMD2<Float>? {
            var best: (area: Double, centroid: SIMD2<Double>, ring: ArraySlice<SIMD2<Int32>>)?
            for part in feature.parts.indices {
                let ring = feature.part(part)
                guard ring.count >= 3 else { continue }
                var area = 0.0
                var cx = 0.0
                var cy = 0.0
                var previous = ring[ring.endIndex - 1]
                for point in ring {
                    let cross = Double(previous.x) * Double(point.y) - Double(point.x) * Double(previous.y)
                    area += cross
                    cx += (Double(previous.x) + Double(point.x)) * cross
                    cy += (Double(previous.y) + Double(point.y)) * cross
                    previous = point
                }
                guard abs(area) > 0 else { continue }
                let centroid = SIMD2(cx / (3 * area), cy / (3 * area))
                if abs(area) / 2 > best?.area ?? 0 { best = (abs(area) / 2, centroid, ring) }
            }
            guard let best else { return nil }
            if contains(best.ring, best.centroid) { return SIMD2(Float(best.centroid.x), Float(best.centroid.y)) }
            let first = best.ring[best.ring.startIndex]
            return SIMD2(Float(first.x), Float(first.y))
        }

        /// Even-odd point-in-ring test.
        private static func contains(_ ring: ArraySlice<SIMD2<Int32>>, _ point: SIMD2<Double>) -> Bool {
            var inside = false
            var previous = ring[ring.endIndex - 1]
            for current in ring {
                let (x0, y0, x1, y1) = (Double(previous.x), Double(previous.y), Double(current.x), Double(current.y))
                if (y0 > point.y) != (y1 > point.y), point.x < (x1 - x0) * (point.y - y0) / (y1 - y0) + x0 { inside.toggle() }
                previous = current
            }
            return inside
        }
    }
}

extension String {
    /// The string without leading and trailing white space (Foundation-free, for the tile path).
    fileprivate func trimmingCharactersOfWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
