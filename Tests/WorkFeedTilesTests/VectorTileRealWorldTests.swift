import Foundation
import WorkFeedModel
import Testing
import WorkFeedTiles

/// Real tiles (mvt-fixtures' `real-world`: Mapbox Streets v7 over Chicago at z13 and San Francisco
/// at z15), and the decoder fed damaged copies of them.
@Suite struct VectorTileRealWorldTests {
    @Test func everyRealWorldTileDecodesToPlausibleContent() throws {
        let tiles = try TestData.realWorldTiles()
        #expect(tiles.count == 39)
        var layerNames = Set<String>()
        var featureCount = 0
        for (name, bytes) in tiles {
            let tile = try VectorTile(decoding: bytes)
            #expect(!tile.layers.isEmpty, "\(name)")
            #expect(tile.skippedLayers == 0, "\(name)")
            for layer in tile.layers {
                layerNames.insert(layer.name)
                #expect(layer.extent == 4096, "\(name) \(layer.name)")
                #expect(layer.version == 2 || layer.version == 1, "\(name) \(layer.name)")
                #expect(layer.skippedFeatures == 0, "\(name) \(layer.name)")
                featureCount += layer.features.count
                for feature in layer.features {
                    #expect(!feature.points.isEmpty && !feature.parts.isEmpty)
                    #expect(feature.parts.first == 0 && feature.parts.allSatisfy { Int($0) < feature.points.count })
                    #expect(feature.tags.count % 2 == 0)
                    // Geometry stays near the tile: its square plus a buffer.
                    #expect(feature.points.allSatisfy { abs($0.x) < 3 * 4096 && abs($0.y) < 3 * 4096 }, "\(name) \(layer.name)")
                    if feature.type == .polygon {
                        for part in feature.parts.indices { #expect(feature.part(part).count >= 3) }
                    }
                }
            }
        }
        for expected in ["road", "building", "water", "landuse", "poi_label", "road_label"] {
            #expect(layerNames.contains(expected), "no layer \(expected) in \(layerNames.sorted())")
        }
        #expect(featureCount > 10_000)
    }

    @Test func roadsHaveTheirProperties() throws {
        let tile = try VectorTile(decoding: TestData.bytes(TestData.realWorld + "/chicago/13-2100-3044.mvt"))
        let roads = try #require(tile.layers.first { $0.name == "road" })
        #expect(roads.features.count > 100)
        #expect(roads.features.allSatisfy { $0.type == .lineString || $0.type == .point || $0.type == .polygon })
        let classIndex = try #require(roads.keys.firstIndex(of: "class"))
        let classes = Set(
            roads.features.flatMap { feature in
                stride(from: 0, to: feature.tags.count, by: 2).compactMap { index -> String? in
                    guard feature.tags[index] == classIndex, case .string(let value) = roads.values[Int(feature.tags[index + 1])] else {
                        return nil
                    }
                    return value
                }
            })
        #expect(classes.contains("street") || classes.contains("main") || classes.contains("primary"), "\(classes.sorted())")
    }

    /// Damaged tiles give a value or a ``TileError``, never a trap or a hang. The seed is fixed
    /// and printed, so a failure can be replayed; `WORKFEED_FUZZ_SEED` (hex) and
    /// `WORKFEED_FUZZ_ITERATIONS` override the seed and the count for a longer run.
    @Test func mutatedTilesNeverTrap() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["WORKFEED_FUZZ_SEED"].flatMap { UInt64($0, radix: 16) } ?? 0x5EED_0F_711E5
        let iterations = environment["WORKFEED_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 3_000
        print("VectorTile fuzz seed: \(String(seed, radix: 16)), \(iterations) iterations")
        var random = SplitMix64(seed: seed)
        // The smaller tiles keep the run short in debug builds; sizes still span 0.4 to 35 KB.
        let tiles = try TestData.realWorldTiles().map(\.bytes).filter { $0.count < 36_000 }
        #expect(!tiles.isEmpty)
        var decoded = 0
        var refused = 0
        for iteration in 0..<iterations {
            var bytes = tiles[Int.random(in: 0..<tiles.count, using: &random)]
            let mutations = Int.random(in: 1...2, using: &random)
            for _ in 0..<mutations {
                Self.mutate(&bytes, using: &random)
            }
            do throws(TileError) {
                let tile = try VectorTile(decoding: bytes)
                decoded += 1
                for layer in tile.layers {
                    for feature in layer.features {
                        #expect(feature.parts.allSatisfy { Int($0) <= feature.points.count }, "iteration \(iteration)")
                    }
                }
            } catch {
                #expect(error.code == .malformedTile, "iteration \(iteration)")
                refused += 1
            }
        }
        print("VectorTile fuzz: \(iterations) mutated tiles, \(decoded) decoded, \(refused) refused")
        #expect(decoded + refused == iterations)
        #expect(refused > 0 && decoded > 0)
    }

    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes.append(UInt8.random(in: 0...255, using: &random))
            return
        }
        let position = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0:  // flip bits of one byte
            bytes[position] ^= UInt8.random(in: 1...255, using: &random)
        case 1:  // truncate
            bytes.removeSubrange(position...)
        case 2:  // insert random bytes
            let count = Int.random(in: 1...8, using: &random)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }, at: position)
        case 3:  // delete a run
            bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &random)))
        case 4:  // a large varint where a small one was
            bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F], at: position)
        default:  // repeat a chunk
            let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
            bytes.insert(contentsOf: bytes[position..<end], at: end)
        }
    }
}
