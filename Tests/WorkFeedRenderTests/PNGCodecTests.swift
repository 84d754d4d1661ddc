import Testing
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

@Suite struct PNGCodecTests {
    @Test func rgbaRoundTrips() throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 1, 2, 3, 4]
        let png = try PNGCodec.encode(rgba: pixels, width: 2, height: 2)
        let image = try PNGCodec.decode(png)
        #expect(image.width == 2 && image.height == 2)
        #expect(image.rgba == pixels)
        #expect(image.pixel(x: 1, y: 0) == RGBA(red: 0, green: 255, blue: 0, alpha: 128))
    }

    @Test(arguments: PNGCodec.Compression.allCases)
    func rgbRoundTripsAtEitherCompression(compression: PNGCodec.Compression) throws {
        let pixels = (0..<(16 * 9 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let png = try PNGCodec.encode(rgb: pixels, width: 16, height: 9, compression: compression)
        let image = try PNGCodec.decode(png)
        #expect(
            image.pixel(x: 3, y: 2) == RGBA(red: pixels[(2 * 16 + 3) * 3], green: pixels[(2 * 16 + 3) * 3 + 1], blue: pixels[(2 * 16 + 3) * 3 + 2]))
    }

    @Test func textChunksReadBackInOrder() throws {
        let png = try PNGCodec.encode(
            rgb: [1, 2, 3], width: 1, height: 1, text: [(keyword: "first", value: "one"), (keyword: "second", value: "twö")])
        #expect(PNGCodec.textChunks(png) == ["first": "one", "second": "twö"])
        // Inserted right after IHDR: the chunk at byte 33 is tEXt.
        #expect(Array(png[37..<41]) == Array("tEXt".utf8))
    }

    @Test func unwritableTextIsAnError() {
        #expect(throws: PNGError.self) { try PNGCodec.encode(rgb: [1, 2, 3], width: 1, height: 1, text: [(keyword: "", value: "x")]) }
        #expect(throws: PNGError.self) { try PNGCodec.encode(rgb: [1, 2, 3], width: 1, height: 1, text: [(keyword: "k", value: "€")]) }
        #expect(throws: PNGError.self) {
            try PNGCodec.encode(rgb: [1, 2, 3], width: 1, height: 1, text: [(keyword: String(repeating: "k", count: 80), value: "")])
        }
    }

    @Test func wrongPixelCountIsAnError() {
        #expect(throws: PNGError.self) { try PNGCodec.encode(rgb: [1, 2], width: 1, height: 1) }
        #expect(throws: PNGError.self) { try PNGCodec.encode(rgb: [], width: 0, height: 0) }
    }

    @Test func malformedInputIsAnErrorNotACrash() throws {
        let good = try PNGCodec.encode(rgb: Array(repeating: 90, count: 64 * 64 * 3), width: 64, height: 64)
        var corrupt = good
        corrupt[good.count / 2] ^= 0xFF
        corrupt[good.count / 2 + 1] ^= 0xFF
        let inputs: [[UInt8]] = [
            [], [0x89, 0x50], Array("not a png at all, not even close".utf8), Array(good.prefix(40)),
            Array(good.prefix(good.count - 20)), Array(good[..<8]) + Array(repeating: 0xFF, count: 100),
        ]
        for input in inputs {
            #expect(throws: PNGError.self) { try PNGCodec.decode(input) }
            _ = PNGCodec.textChunks(input)
        }
        // A flipped byte inside the compressed data: either an error or some picture, never a trap.
        _ = try? PNGCodec.decode(corrupt)
        #expect(PNGCodec.textChunks(Array(repeating: 0, count: 10)).isEmpty)
    }

    @Test func errorsCarryLibpngsMessage() {
        do {
            _ = try PNGCodec.decode(Array("definitely not a PNG".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.operation == .decode)
            #expect(!error.message.isEmpty)
            #expect(error.description.hasPrefix("PNG decode failed: "))
        }
    }
}
