import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

@Suite struct PNGEncoderTests {
    /// Seeds the random pixels; printed in every failure message so a failing case can be rerun.
    static let seed: UInt64 = 0x5EED_0F_B1A5

    static let sizes: [(width: Int, height: Int)] = [(1, 1), (3, 5), (513, 7), (64, 64), (7, 300)]

    @Test(arguments: [3, 4], sizes.indices)
    func randomPixelsRoundTripThroughLibpng(channels: Int, size: Int) throws {
        let (width, height) = Self.sizes[size]
        var random = SeededRandom(seed: Self.seed &+ UInt64(size))
        let pixels = (0..<(width * height * channels)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let png = try encode(pixels, channels: channels, width: width, height: height)
        let image = try PNGCodec.decode(png)
        #expect(image.width == width && image.height == height, "seed \(Self.seed)")
        #expect(image.rgba == Self.rgba(pixels, channels: channels), "seed \(Self.seed), \(width)x\(height)x\(channels)")
    }

    @Test(arguments: [3, 4])
    func flatAndBusyPicturesRoundTrip(channels: Int) throws {
        // A flat field with a diagonal band: long matches and literals in one stream.
        let width = 300
        let height = 200
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * channels
                let inBand = abs(x - y) < 20
                pixels[offset] = inBand ? UInt8(x % 256) : 240
                pixels[offset + 1] = inBand ? UInt8(y % 256) : 236
                pixels[offset + 2] = 228
                if channels == 4 { pixels[offset + 3] = inBand ? 128 : 255 }
            }
        }
        let png = try encode(pixels, channels: channels, width: width, height: height)
        #expect(try PNGCodec.decode(png).rgba == Self.rgba(pixels, channels: channels))
        // It is compressed, not stored: far smaller than the raw pixels (the band's gradient is
        // literals to PixelDeflate, which tries only the neighbouring pixels: 10.4 % of the raw
        // RGB, where libdeflate's level 1 made under 10 %).
        #expect(png.count < pixels.count / 8)
    }

    @Test func chunksAreWellFormedAndInOrder() throws {
        let png = try encode(Array(repeating: 7, count: 4 * 3 * 3), channels: 3, width: 4, height: 3, text: [(keyword: "k", value: "v")])
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let chunks = try #require(Self.chunks(png))
        #expect(chunks.map(\.type) == ["IHDR", "tEXt", "sRGB", "IDAT", "IEND"])
        // Width 4, height 3, bit depth 8, colour type 2 (RGB), deflate, filter method 0, not interlaced.
        #expect(chunks[0].data == [0, 0, 0, 4, 0, 0, 0, 3, 8, 2, 0, 0, 0])
        #expect(chunks[2].data == [0])
        let rgbaHeader = try #require(Self.chunks(encode(Array(repeating: 7, count: 4), channels: 4, width: 1, height: 1)))
        #expect(rgbaHeader[0].data[9] == 6)
    }

    @Test func textReadsBackFromItsChunk() throws {
        let text = [(keyword: "workfeed:cache-key", value: "route:3f2a9c/v1/light@2x"), (keyword: "second", value: "twö")]
        let png = try encode([1, 2, 3, 4, 5, 6], channels: 3, width: 2, height: 1, text: text)
        #expect(PNGCodec.textChunks(png) == ["workfeed:cache-key": "route:3f2a9c/v1/light@2x", "second": "twö"])
        // Right after IHDR, as PNGCodec puts it.
        #expect(Array(png[37..<41]) == Array("tEXt".utf8))
        #expect(try PNGCodec.decode(png).pixel(x: 1, y: 0) == RGBA(red: 4, green: 5, blue: 6))
    }

    @Test func sameInputsGiveTheSameBytes() throws {
        var random = SeededRandom(seed: Self.seed)
        let small = (0..<(40 * 30 * 3)).map { _ in UInt8(truncatingIfNeeded: random.next() % 4) }
        let large = (0..<(200 * 150 * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let encoder = PNGEncoder()
        func encodeSmall(_ encoder: PNGEncoder) throws -> [UInt8] {
            try small.withUnsafeBytes { pixels throws(PNGError) in
                try encoder.encode(pixels: pixels, channels: 3, width: 40, height: 30, text: [(keyword: "k", value: "v")])
            }
        }
        let first = try encodeSmall(encoder)
        let second = try encodeSmall(encoder)
        // A larger picture in between must leave nothing behind in the reused buffers.
        _ = try large.withUnsafeBytes { pixels throws(PNGError) in
            try encoder.encode(pixels: pixels, channels: 3, width: 200, height: 150)
        }
        let third = try encodeSmall(encoder)
        let fresh = try encodeSmall(PNGEncoder())
        #expect(first == second, "seed \(Self.seed)")
        #expect(first == third, "seed \(Self.seed)")
        #expect(first == fresh, "seed \(Self.seed)")
    }

    @Test(arguments: [Int32(-5), 0, 6, 12, 99])
    func everyLevelGivesTheSamePixels(level: Int32) throws {
        var random = SeededRandom(seed: Self.seed)
        let pixels = (0..<(33 * 17 * 3)).map { _ in UInt8(truncatingIfNeeded: random.next() % 8) }
        let encoder = PNGEncoder(level: level)
        #expect(encoder.compression == .libdeflate(level: min(max(level, 0), 12)))
        let png = try pixels.withUnsafeBytes { raw throws(PNGError) in
            try encoder.encode(pixels: raw, channels: 3, width: 33, height: 17)
        }
        #expect(try PNGCodec.decode(png).rgba == Self.rgba(pixels, channels: 3), "seed \(Self.seed), level \(level)")
    }

    @Test func badInputsAreErrorsNotCrashes() {
        let encoder = PNGEncoder()
        let pixels: [UInt8] = [1, 2, 3, 4, 5, 6]
        func attempt(_ channels: Int, _ width: Int, _ height: Int, text: [(keyword: String, value: String)] = []) throws {
            _ = try pixels.withUnsafeBytes { raw throws(PNGError) in
                try encoder.encode(pixels: raw, channels: channels, width: width, height: height, text: text)
            }
        }
        #expect(throws: PNGError.self) { try attempt(3, 3, 1) }  // 9 bytes expected, 6 given
        #expect(throws: PNGError.self) { try attempt(2, 3, 1) }
        #expect(throws: PNGError.self) { try attempt(6, 1, 1) }
        #expect(throws: PNGError.self) { try attempt(3, 0, 2) }
        #expect(throws: PNGError.self) { try attempt(3, -2, -1) }
        #expect(throws: PNGError.self) { try attempt(3, Int.max, 2) }
        #expect(throws: PNGError.self) { try attempt(3, 2, 1, text: [(keyword: "", value: "x")]) }
        #expect(throws: PNGError.self) { try attempt(3, 2, 1, text: [(keyword: "k", value: "€")]) }
        #expect(throws: PNGError.self) {
            _ = try encoder.encode(pixels: UnsafeRawBufferPointer(start: nil, count: 0), channels: 3, width: 1, height: 1)
        }
        // The encoder still works after refusing.
        #expect(throws: Never.self) { try attempt(3, 2, 1) }
    }

    @Test func renderedPicturesComeFromThisEncoder() throws {
        let png = try Renderer().render(spec: Fixtures.spec(), route: Fixtures.horizontal, heartRate: [], cacheKey: "k")
        let chunks = try #require(Self.chunks(png))
        #expect(chunks.map(\.type) == ["IHDR", "tEXt", "sRGB", "IDAT", "IEND"])
        #expect(PNGCodec.textChunks(png)["workfeed:cache-key"] == "k")
    }

    // MARK: - Helpers

    private func encode(
        _ pixels: [UInt8], channels: Int, width: Int, height: Int, text: [(keyword: String, value: String)] = []
    ) throws -> [UInt8] {
        try pixels.withUnsafeBytes { raw throws(PNGError) in
            try PNGEncoder().encode(pixels: raw, channels: channels, width: width, height: height, text: text)
        }
    }

    /// What `PNGCodec.decode` gives for these pixels: RGBA, opaque where there was no alpha.
    static func rgba(_ pixels: [UInt8], channels: Int) -> [UInt8] {
        guard channels == 3 else { return pixels }
        var out: [UInt8] = []
        out.reserveCapacity(pixels.count / 3 * 4)
        for index in stride(from: 0, to: pixels.count, by: 3) {
            out.append(contentsOf: pixels[index..<(index + 3)])
            out.append(255)
        }
        return out
    }

    /// Every chunk after the signature, or `nil` if any is truncated or fails its CRC, checked
    /// with a CRC-32 written here so that the check does not share code with the encoder.
    static func chunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])]? {
        var result: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { return nil }
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= png.count - offset - 12 else { return nil }
            let typeAndData = Array(png[(offset + 4)..<(offset + 8 + length)])
            let stored = png[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard crc32(typeAndData) == stored else { return nil }
            result.append((String(decoding: typeAndData.prefix(4), as: UTF8.self), Array(typeAndData.dropFirst(4))))
            offset += 12 + length
        }
        return result
    }

    /// Bitwise CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320), as PNG defines it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// SplitMix64: a fixed seed gives the same pixels on every run and platform.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
