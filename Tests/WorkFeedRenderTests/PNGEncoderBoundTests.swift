import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

/// `PictureSpec.maximumEncodedBytes` bounds every picture a worker can write (issue 37, item 9:
/// readers refuse anything larger without buffering it): the largest picture, made of random
/// pixels that deflate cannot shrink, in RGB (what pictures are) and RGBA, with the cache key's
/// text, through the renderer's encoder (``PixelDeflate``), libdeflate at its fastest level and at
/// level 0 (stored blocks only) and through libpng's writer, is never larger.
@Suite struct PNGEncoderBoundTests {
    static let seed: UInt64 = 0xB0_0037

    @Test(arguments: [3, 4])
    func theLargestIncompressiblePictureFitsTheBound(channels: Int) throws {
        let side = PictureSpec.maximumPixelSide
        var random = SeededRandom(seed: Self.seed &+ UInt64(channels))
        var pixels = [UInt8](repeating: 0, count: side * side * channels)
        pixels.withUnsafeMutableBytes { buffer in
            let words = buffer.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = random.next() }
        }
        let text = [(keyword: CacheLayout.keyTextKeyword, value: String(repeating: "9c", count: 32))]
        var sizes: [String: Int] = [:]
        let encoders: [(String, PNGEncoder.Compression)] = [
            ("neighbours (the renderer's)", .neighbours),
            ("libdeflate level \(PNGEncoder.defaultLevel)", .libdeflate(level: PNGEncoder.defaultLevel)),
            ("libdeflate level 0", .libdeflate(level: 0)),
        ]
        for (name, compression) in encoders {
            let png = try pixels.withUnsafeBytes { raw throws(PNGError) in
                try PNGEncoder(compression: compression).encode(pixels: raw, channels: channels, width: side, height: side, text: text)
            }
            sizes[name] = png.count
            if compression == .neighbours { #expect(try PNGCodec.decode(png).rgba == PNGEncoderTests.rgba(pixels, channels: channels)) }
        }
        let libpng =
            channels == 4
            ? try PNGCodec.encode(rgba: pixels, width: side, height: side, text: text)
            : try PNGCodec.encode(rgb: pixels, width: side, height: side, text: text)
        sizes["libpng"] = libpng.count
        print(
            "largest \(side)x\(side)x\(channels) picture, random pixels (seed \(String(Self.seed, radix: 16))): \(sizes), bound \(PictureSpec.maximumEncodedBytes)"
        )
        for (encoder, size) in sizes {
            #expect(size <= PictureSpec.maximumEncodedBytes, "\(encoder): \(size) bytes, over the bound \(PictureSpec.maximumEncodedBytes)")
        }
        // The bound is not loose by more than the allowance it names: within 2 % of the worst RGBA.
        if channels == 4 { #expect(Double(PictureSpec.maximumEncodedBytes) < Double(sizes.values.max() ?? 0) * 1.02) }
    }
}
