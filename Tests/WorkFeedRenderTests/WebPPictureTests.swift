import Testing
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle

/// WebP pictures (docs/rendering.md, "WebP"): the same pixels as the PNG within the PSNR bound, a
/// third of its bytes at @2x and @3x, and the same bytes every time.
@Suite struct WebPPictureTests {
    /// The least PSNR a WebP picture may have against the PNG's pixels (the measured ones are
    /// 35.5-38.0 dB on the Heidelberg map at @2x and @3x: docs/benchmarks.md, "WebP beside the PNG").
    static let psnrBound = 35.0

    @Test(arguments: Theme.shipped, [2, 3])
    func aMapPictureAsWebPIsAThirdOfThePNGAndWithinThePSNRBound(theme: Theme, scale: Int) throws {
        let (renderer, run, spec) = try MapFixtures.heidelbergRun(theme, scale: scale)
        let png = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "test-key")
        let webp = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "test-key", format: .webp)
        #expect(WebPCodec.isWebP(webp))
        #expect(!WebPCodec.isWebP(png))
        let pixels = try PNGCodec.decode(png)
        let decoded = try WebPCodec.decode(webp)
        #expect(decoded.width == 512 * scale && decoded.height == 512 * scale)
        let difference = try #require(decoded.difference(from: pixels))
        #expect(difference.psnr >= Self.psnrBound, "PSNR \(difference.psnr) dB")
        #expect(webp.count * 3 <= png.count, "\(webp.count) bytes of WebP against \(png.count) of PNG")
    }

    @Test func theSamePixelsGiveTheSameWebPBytes() throws {
        let basemap = try MapFixtures.basemap()
        let run = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.route, .dark, basemap: basemap, scale: 2)
        let renderer = Renderer(basemap: basemap)
        let first = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "k", format: .webp)
        // A picture in between leaves nothing behind that changes the next one.
        _ = try renderer.render(spec: MapFixtures.spec(.route, .light, basemap: basemap), route: run.route, heartRate: [], cacheKey: "k")
        let again = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "k", format: .webp)
        let fresh = try Renderer(basemap: basemap).render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "k", format: .webp)
        #expect(first == again)
        #expect(first == fresh)
    }

    @Test func theEncoderTakesWhatItIsGivenAndRefusesWrongSizes() throws {
        let rgb = [UInt8](repeating: 200, count: 8 * 4 * 3)
        let webp = try rgb.withUnsafeBytes { pixels in try WebPEncoder().encode(rgb: pixels, width: 8, height: 4) }
        let back = try WebPCodec.decode(webp)
        #expect(back.width == 8 && back.height == 4)
        #expect(throws: WebPError.self) {
            try rgb.withUnsafeBytes { pixels in try WebPEncoder().encode(rgb: pixels, width: 8, height: 5) }
        }
        #expect(throws: WebPError.self) {
            try rgb.withUnsafeBytes { pixels in try WebPEncoder().encode(rgb: pixels, width: 0, height: 4) }
        }
    }

    /// A see-through picture keeps its alpha in WebP too: its corners let what is under it through.
    @Test func aTransparentPictureKeepsItsAlpha() throws {
        let run = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.route, .transparent, basemap: nil, scale: 1)
        let renderer = Renderer()
        let png = try PNGCodec.decode(try renderer.render(spec: spec, route: run.route, heartRate: [], cacheKey: "k"))
        let webp = try WebPCodec.decode(try renderer.render(spec: spec, route: run.route, heartRate: [], cacheKey: "k", format: .webp))
        #expect(webp.rgba[3] == 0 && webp.rgba.last == 0, "see-through corners")
        let opaque = stride(from: 3, to: webp.rgba.count, by: 4).filter { webp.rgba[$0] == 255 }.count
        let opaqueInPNG = stride(from: 3, to: png.rgba.count, by: 4).filter { png.rgba[$0] == 255 }.count
        #expect(opaque > opaqueInPNG / 2, "the route's line stays opaque: \(opaque) pixels against the PNG's \(opaqueInPNG)")
    }

    @Test func brokenBytesAreRefusedNeverTrapped() {
        var bytes = Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)
        #expect(throws: WebPError.self) { try WebPCodec.decode(bytes) }
        bytes += [UInt8](repeating: 0xff, count: 64)
        #expect(throws: WebPError.self) { try WebPCodec.decode(bytes) }
        #expect(throws: WebPError.self) { try WebPCodec.decode([]) }
    }
}

extension MapFixtures {
    /// A renderer on the Heidelberg tileset, the Heidelberg run, and its route picture's spec.
    static func heidelbergRun(_ theme: Theme, scale: Int) throws -> (Renderer, ImportedWorkout, PictureSpec) {
        let basemap = try basemap()
        let spec = spec(.route, theme, basemap: basemap, scale: scale)
        return (Renderer(basemap: basemap), try workout(run), spec)
    }
}
