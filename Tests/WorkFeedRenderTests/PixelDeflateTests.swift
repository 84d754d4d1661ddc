import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

/// The renderer's own DEFLATE (``PixelDeflate``): every stream it writes inflates (through libpng
/// and zlib, which share no code with it) to the pixels it was given.
@Suite struct PixelDeflateTests {
    static let seed: UInt64 = 0xDEF1_A7E0_0039

    /// A picture with every kind of token: flat runs (the pixel before), rows repeated (above),
    /// a diagonal edge one pixel over each row (above-left and above-right), noise (literals, and
    /// more than one block of them), a pattern repeated far away (copies the neighbours miss).
    static func mixed(width: Int, height: Int, channels: Int) -> [UInt8] {
        var random = SeededRandom(seed: seed &+ UInt64(channels))
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let stamp = (0..<(12 * channels)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * channels
                let value: [UInt8]
                switch (x * 5 / width, y % 50) {
                case (0, _): value = [200, 210, 220, 255]
                case (1, _): value = abs(x - width / 5 - y % (width / 5)) < 3 ? [30, 40, 50, 128] : [250, 250, 240, 255]
                case (2, _): value = (0..<4).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                case (3, 0..<4): value = Array(stamp[(x % 12 * channels)...].prefix(channels)) + [255, 255, 255, 255]
                default: value = [UInt8(x % 7 * 30), UInt8(y % 3 * 80), 90, 255]
                }
                for channel in 0..<channels { pixels[offset + channel] = value[channel] }
            }
        }
        return pixels
    }

    /// 12,000 pixels a row is past DEFLATE's 32 KiB window for the pixel above: pictures are never
    /// that wide, but `PNGEncoder` takes any width, and the row above must then not be tried.
    @Test(arguments: [3, 4], [(1, 1), (2, 1), (1, 9), (5, 3), (701, 403), (2048, 5), (12_000, 4)])
    func everyStreamInflatesToItsPixels(channels: Int, size: (Int, Int)) throws {
        let (width, height) = size
        let pixels = Self.mixed(width: width, height: height, channels: channels)
        let png = try pixels.withUnsafeBytes { raw throws(PNGError) in
            try PNGEncoder().encode(pixels: raw, channels: channels, width: width, height: height)
        }
        #expect(try PNGCodec.decode(png).rgba == PNGEncoderTests.rgba(pixels, channels: channels), "\(width)x\(height)x\(channels)")
        #expect(png.count <= PNGEncoderTests.rgba(pixels, channels: channels).count + 5 * (pixels.count / 65_535 + 1) + 200)
    }

    /// Large enough for several blocks, busy enough that the stored fallback is not what saves it.
    @Test func aMixedPictureIsSmallerThanStored() throws {
        let pixels = Self.mixed(width: 701, height: 403, channels: 3)
        let png = try pixels.withUnsafeBytes { raw throws(PNGError) in
            try PNGEncoder().encode(pixels: raw, channels: 3, width: 701, height: 403)
        }
        // Two fifths of it is noise; the rest compresses well.
        #expect(png.count < pixels.count / 2)
    }

    /// The code lengths make a complete prefix code within the limit, however skewed the counts
    /// (Fibonacci counts would want a code as long as the alphabet), and for one symbol or none.
    @Test(arguments: [15, 7])
    func codesAreCompleteAndWithinTheirLimit(limit: Int) {
        var fibonacci = [1, 1]
        while fibonacci.count < 30 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        let cases: [[Int]] = [fibonacci, [0, 0, 5, 0], [0, 0, 0], [3, 3, 3, 3, 3], Array(repeating: 1, count: 286)]
        for frequencies in cases where frequencies.count <= 1 << limit {
            let lengths = Huffman.lengths(frequencies, limit: limit)
            #expect(lengths.allSatisfy { $0 <= limit }, "\(frequencies)")
            let kraft = lengths.filter { $0 > 0 }.reduce(0) { $0 + 1 << (limit - Int($1)) }
            #expect(kraft == 1 << limit, "\(frequencies): \(lengths)")
            for (symbol, frequency) in frequencies.enumerated() where frequency > 0 { #expect(lengths[symbol] > 0) }
        }
    }
}

/// The map pictures' pixels are main's before issue 39 changed how they are drawn (lines read and
/// clear only the blocks they stamp, drawn a band of rows at a time; area runs filled at once):
/// the SHA-256 of each decoded picture (RGBA), from main's release build (eefeabb, the bench's
/// Heidelberg picture). Only the compression of the PNG changed, so only its bytes.
@Suite struct MapPixelsPinTests {
    static let pinned: [String: String] = [
        "light@1x": "a2db15a3da4241fd4e815e5ed6ca01895bc614849e3797a9281f1588af912f8b",
        "light@2x": "84b8ea80f7b7bb0b5e7268792c8bdd038c41da98d1e7178b516cabb760c59cd8",
        "light@3x": "4a07b3bcd764f5eda9ea10bb9264d49280bdd790cc5dafb53beaf21c50bd3811",
        "dark@1x": "b333cffb7f6517e2be4257d2668bd6c16a6c1a3a6a33eafee93c5bf480fbf9e6",
        "dark@2x": "c544583410b286bcc9e9f377d17598a1ecaabc9ac3a9d8e9d184f5f43bd77972",
        "dark@3x": "61bf139a600705175829f262b9cce3d096102ec8607d1c10ed953ad69f91e50d",
    ]

    @Test(arguments: Theme.shipped, [1, 2, 3])
    func theHeidelbergPicturesPixelsAreMains(theme: Theme, scale: Int) throws {
        let basemap = try MapFixtures.basemap()
        let workout = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.route, theme, basemap: basemap, scale: scale)
        let (image, _, _) = try MapFixtures.draw(spec, workout, renderer: Renderer(basemap: basemap))
        let digest = SHA256.hex(image.rgba)
        #expect(digest == Self.pinned["\(theme.rawValue)@\(scale)x"], "\(theme) @\(scale)x")
    }

    /// Lines drawn in bands of 16 rows, and in one band, give the same bytes.
    @Test(arguments: Theme.shipped)
    func bandsOfLinesGiveTheSameBytes(theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let workout = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.route, theme, basemap: basemap, scale: 2)
        var pictures: [[UInt8]] = []
        for pixels in [1, 1 << 17, Int.max / 2] {
            let renderer = Renderer(basemap: basemap)
            renderer.lineBandPixels = pixels
            pictures.append(try MapFixtures.draw(spec, workout, renderer: renderer).2)
        }
        #expect(pictures[0] == pictures[1])
        #expect(pictures[1] == pictures[2])
    }
}
