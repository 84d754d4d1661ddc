import Foundation
import Testing
import WorkFeedTiles

/// Every fixture of mapbox/mvt-fixtures (`Tests/Data/basemap/mvt-fixtures/fixtures/*`): a valid one
/// decodes to its `tile.json`, an invalid one throws a ``TileError``, except where
/// ``VectorTileFixtureTests/exceptions`` says otherwise and why.
@Suite struct VectorTileFixtureTests {
    enum Outcome: Sendable {
        /// Decodes and matches `tile.json` exactly.
        case decodes
        /// Throws a `.malformedTile` error.
        case throwsError
        /// Decodes, matching `tile.json` except that this many features of its first layer are
        /// skipped (all of them, in these fixtures).
        case skipsFeatures(Int)
        /// Decodes, matching `tile.json` without its layers after the first.
        case skipsLayers(Int)
    }

    /// The fixtures whose outcome is not simply "valid in v2 decodes, invalid throws". Invalid
    /// fixtures the suite marks `recoverable` drop the bad feature (or layer) and keep the rest.
    static let exceptions: [String: (outcome: Outcome, why: String)] = [
        "003": (.decodes, "no type field: kept as type UNKNOWN (the proto default); its bytes equal 016's, which is valid"),
        "004": (.skipsFeatures(1), "a feature without geometry: recoverable, the feature is dropped"),
        "005": (.skipsFeatures(1), "an odd number of tags: recoverable, the feature is dropped"),
        "006": (.skipsFeatures(1), "geometry type 8: recoverable, the feature is dropped"),
        "015": (.skipsLayers(1), "two layers named 'hello': recoverable, the second is dropped"),
        "030": (.skipsFeatures(1), "two geometry fields: recoverable, the feature is dropped"),
        "046": (.decodes, "a line repeating a point: recoverable, and decoders do not check OGC validity, so it is kept as is"),
        "057": (
            .throwsError,
            "marked valid, but it is 051's error (a MoveTo count of 536870911 followed by one point): spec 4.3 wants count "
                + "pairs of parameters, so both are refused"
        ),
    ]

    static let names = TestData.contents(TestData.fixtures)

    @Test func allFixturesArePresent() {
        // 001-077 without 028, 029 and 031 (mvt-fixtures removed those).
        #expect(Self.names.count == 74)
    }

    @Test(arguments: names)
    func fixture(_ name: String) throws {
        let directory = TestData.fixtures + "/" + name
        let info = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/info.json"))) as? [String: Any])
        let validity = try #require(info["validity"] as? [String: Any])
        let validInV2 = try #require(validity["v2"] as? Bool)
        let outcome = Self.exceptions[name]?.outcome ?? (validInV2 ? .decodes : .throwsError)
        let bytes = try TestData.bytes(directory + "/tile.mvt")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/tile.json"))) as? [String: Any])
        let expected = try ExpectedTile(json)

        switch outcome {
        case .throwsError:
            let error = #expect(throws: TileError.self) { try VectorTile(decoding: bytes) }
            #expect(error?.code == .malformedTile)
            #expect(error?.message.hasPrefix("at byte ") == true, "\(String(describing: error))")
        case .decodes:
            let tile = try VectorTile(decoding: bytes)
            expected.check(tile, fixture: name)
            #expect(tile.skippedLayers == 0)
            #expect(tile.layers.allSatisfy { $0.skippedFeatures == 0 })
        case .skipsFeatures(let count):
            let tile = try VectorTile(decoding: bytes)
            var trimmed = expected
            trimmed.layers[0].features.removeFirst(count)
            trimmed.check(tile, fixture: name)
            #expect(tile.layers.first?.skippedFeatures == count)
        case .skipsLayers(let count):
            let tile = try VectorTile(decoding: bytes)
            var trimmed = expected
            trimmed.layers.removeLast(count)
            trimmed.check(tile, fixture: name)
            #expect(tile.skippedLayers == count)
        }
    }

    /// The spec's own examples (section 4.3.5), written out by hand rather than through the
    /// reference interpreter below.
    @Test func specExamplesDecodeToTheirPoints() throws {
        func feature(_ name: String) throws -> VectorTileFeature {
            try #require(try VectorTile(decoding: TestData.bytes(TestData.fixtures + "/\(name)/tile.mvt")).layers.first?.features.first)
        }
        func p(_ x: Int32, _ y: Int32) -> SIMD2<Int32> { SIMD2(x, y) }

        let point = try feature("017")
        #expect(point.type == .point && point.points == [p(25, 17)] && point.parts == [0])
        let line = try feature("018")
        #expect(line.type == .lineString && line.points == [p(2, 2), p(2, 10), p(10, 10)] && line.parts == [0])
        let polygon = try feature("019")
        #expect(polygon.type == .polygon && polygon.points == [p(3, 6), p(8, 12), p(20, 34)] && polygon.parts == [0])
        let multiPoint = try feature("020")
        #expect(multiPoint.points == [p(5, 7), p(3, 2)] && multiPoint.parts == [0])
        let multiLine = try feature("021")
        #expect(multiLine.points == [p(2, 2), p(2, 10), p(10, 10), p(1, 1), p(3, 5)] && multiLine.parts == [0, 3])
        let multiPolygon = try feature("022")
        #expect(
            multiPolygon.points == [
                p(0, 0), p(10, 0), p(10, 10), p(0, 10),
                p(11, 11), p(20, 11), p(20, 20), p(11, 20),
                p(13, 13), p(13, 17), p(17, 17), p(17, 13),
            ])
        #expect(multiPolygon.parts == [0, 4, 8])
        // Spec 4.3.4.4: exterior rings have positive area in tile coordinates (y down), interior
        // rings negative; so 022 is two polygons, the second with a hole.
        #expect(Self.signedArea(multiPolygon.part(0)) > 0)
        #expect(Self.signedArea(multiPolygon.part(1)) > 0)
        #expect(Self.signedArea(multiPolygon.part(2)) < 0)
        #expect(multiPolygon.part(2).count == 4)
    }

    @Test func coordinatesPastInt32WrapInsteadOfTrapping() throws {
        // 049: x = 2147483647, then +1.
        let tile = try VectorTile(decoding: TestData.bytes(TestData.fixtures + "/049/tile.mvt"))
        #expect(tile.layers[0].features[0].points == [SIMD2(Int32.max, 0), SIMD2(Int32.min, 1)])
    }

    @Test func messagesNameTheProblem() throws {
        let cases: [(String, String)] = [
            ("040", "tag 0 points to keys[2], but the layer has 1"),
            ("012", "version 99"),
            ("014", "without a name"),
            ("051", "MoveTo with count 536870911"),
            ("047", "ClosePath with count 2"),
            ("011", "unknown field 4242"),
            ("007", "is encoded as length-delimited, not varint"),
        ]
        for (name, fragment) in cases {
            let bytes = try TestData.bytes(TestData.fixtures + "/\(name)/tile.mvt")
            let error = #expect(throws: TileError.self) { try VectorTile(decoding: bytes) }
            #expect(error?.message.contains(fragment) == true, "\(name): \(String(describing: error))")
        }
    }

    static func signedArea(_ ring: ArraySlice<SIMD2<Int32>>) -> Int64 {
        let points = Array(ring)
        var twice: Int64 = 0
        for index in points.indices {
            let a = points[index]
            let b = points[(index + 1) % points.count]
            twice += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        return twice
    }
}

/// A fixture's `tile.json`: the protobuf fields as numbers, geometry as the raw command integers.
struct ExpectedTile {
    struct Layer {
        var name: String
        var version: Int
        var extent: Int
        var keys: [String]
        var values: [VectorTileValue]
        var features: [Feature]
    }

    struct Feature {
        var id: UInt64?
        var type: Int
        var tags: [UInt32]
        var commands: [UInt32]
    }

    var layers: [Layer] = []

    /// Reads the fields; fields of the wrong JSON type (the invalid fixtures have some) read as
    /// absent, since those fixtures only need to throw.
    init(_ json: [String: Any]) throws {
        for layer in json["layers"] as? [[String: Any]] ?? [] {
            let features = (layer["features"] as? [[String: Any]] ?? []).map { feature in
                Feature(
                    id: (feature["id"] as? NSNumber)?.uint64Value, type: feature["type"] as? Int ?? 0,
                    tags: (feature["tags"] as? [NSNumber] ?? []).map(\.uint32Value),
                    commands: (feature["geometry"] as? [NSNumber] ?? []).map(\.uint32Value))
            }
            let values = (layer["values"] as? [[String: Any]] ?? []).compactMap(Self.value)
            layers.append(
                Layer(
                    name: layer["name"] as? String ?? "", version: layer["version"] as? Int ?? 1, extent: layer["extent"] as? Int ?? 4096,
                    keys: layer["keys"] as? [String] ?? [], values: values, features: features))
        }
    }

    static func value(_ json: [String: Any]) -> VectorTileValue? {
        guard let (kind, raw) = json.first else { return nil }
        if kind == "string_value" {
            // 076 writes the string "613" as the number 613 in its tile.json; its tile holds the string.
            return (raw as? String ?? (raw as? NSNumber)?.stringValue).map(VectorTileValue.string)
        }
        guard let number = raw as? NSNumber else { return nil }
        switch kind {
        case "float_value": return .float(number.floatValue)
        case "double_value": return .double(number.doubleValue)
        case "int_value": return .int(number.int64Value)
        case "uint_value": return .uint(number.uint64Value)
        case "sint_value": return .sint(number.int64Value)
        case "bool_value": return .bool(number.boolValue)
        default: return nil
        }
    }

    func check(_ tile: VectorTile, fixture: String) {
        #expect(tile.layers.count == layers.count, "\(fixture): layer count")
        for (layer, expected) in zip(tile.layers, layers) {
            #expect(layer.name == expected.name, "\(fixture)")
            #expect(layer.version == expected.version, "\(fixture)")
            #expect(layer.extent == expected.extent, "\(fixture)")
            #expect(layer.keys == expected.keys, "\(fixture)")
            #expect(layer.values == expected.values, "\(fixture)")
            #expect(layer.features.count == expected.features.count, "\(fixture): feature count")
            for (feature, wanted) in zip(layer.features, expected.features) {
                #expect(feature.id == wanted.id, "\(fixture): id")
                #expect(feature.type.rawValue == wanted.type, "\(fixture): type")
                #expect(feature.tags == wanted.tags, "\(fixture): tags")
                let (points, parts) = Self.interpret(wanted.commands)
                #expect(feature.points == points, "\(fixture): points")
                #expect(feature.parts == parts, "\(fixture): parts")
            }
        }
    }

    /// The simplest reading of geometry commands, for valid geometry only: each MoveTo command
    /// starts a part, ClosePath adds no point, coordinates wrap at 32 bits.
    static func interpret(_ commands: [UInt32]) -> ([SIMD2<Int32>], [Int32]) {
        var points: [SIMD2<Int32>] = []
        var parts: [Int32] = []
        var x: Int32 = 0
        var y: Int32 = 0
        var index = 0
        func zigzag(_ value: UInt32) -> Int32 { Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1) }
        while index < commands.count {
            let id = commands[index] & 7
            let count = Int(commands[index] >> 3)
            index += 1
            if id == 7 { continue }
            if id == 1 { parts.append(Int32(points.count)) }
            for _ in 0..<count {
                guard index + 1 < commands.count else { break }
                x = x &+ zigzag(commands[index])
                y = y &+ zigzag(commands[index + 1])
                points.append(SIMD2(x, y))
                index += 2
            }
        }
        return (points, parts)
    }
}
