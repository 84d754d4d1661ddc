import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

/// Text through FreeType with Debian's DejaVu Sans (fonts-dejavu-core), as the renderer uses it.
@Suite struct TextTests {
    static let attribution = "© OpenStreetMap contributors"
    static let background = RGBA(red: 240, green: 236, blue: 228)
    static let ink = RGBA(red: 40, green: 40, blue: 40)
    static let haloColour = RGBA(red: 255, green: 255, blue: 255)

    let font: FontFace

    init() throws {
        font = try FontFace()
    }

    @Test(arguments: [10, 20], [0, 1, 2])
    func inkStaysInsideTheMeasuredBox(pixelSize: Int, haloRadius: Int) throws {
        let metrics = font.measure(Self.attribution, pixelSize: pixelSize)
        let layout = font.layout(Self.attribution, pixelSize: pixelSize)
        #expect(layout.metrics == metrics)
        #expect(metrics.width > 0 && metrics.ascent > 0 && metrics.descent > 0)

        let canvas = Canvas()
        canvas.prepare(width: metrics.width + 40, height: metrics.height + 40, background: Self.background)
        let (left, top) = (20, 20)
        let halo = haloRadius > 0 ? Paint(Self.haloColour) : nil
        canvas.draw(layout, left: left, top: top, paint: Paint(Self.ink), halo: halo, haloRadius: haloRadius)

        var inkBox: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        var changed = 0
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where pixel(canvas, x, y) != Self.background {
                changed += 1
                // Nothing outside the box plus the halo's reach.
                #expect(
                    (left - haloRadius..<left + metrics.width + haloRadius).contains(x)
                        && (top - haloRadius..<top + metrics.height + haloRadius).contains(y),
                    "pixel \(x),\(y) outside the box at \(pixelSize) px")
                let b = inkBox ?? (x, y, x, y)
                inkBox = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
            }
        }
        // Real ink, and the box is not much larger than it: only the side bearings of the first
        // and last glyph (about a tenth of the size each) lie between ink and box.
        let box = try #require(inkBox)
        #expect(changed > metrics.width * 2)
        #expect(box.maxX - box.minX + 1 >= metrics.width - pixelSize / 5 + 2 * haloRadius)
        // Capitals reach well above the baseline and descenders (p) below it.
        #expect(box.minY <= top + layout.baseline - pixelSize * 6 / 10)
        #expect(box.maxY >= top + layout.baseline + pixelSize / 10)
        if haloRadius > 0 {
            #expect(changedToward(canvas, Self.haloColour))
        }
    }

    @Test func twiceTheSizeIsAboutTwiceTheWidth() {
        let small = font.measure(Self.attribution, pixelSize: 10)
        let large = font.measure(Self.attribution, pixelSize: 20)
        let ratio = Double(large.width) / Double(small.width)
        #expect((1.9...2.1).contains(ratio), "\(small.width) px at 10, \(large.width) px at 20")
        #expect((1.7...2.3).contains(Double(large.height) / Double(small.height)))
    }

    @Test func kerningPullsPairsTogether() {
        // DejaVu Sans kerns "AV"; a face without kerning would give equal widths.
        let pair = font.measure("AV", pixelSize: 40).width
        let apart = font.measure("A", pixelSize: 40).width + font.measure("V", pixelSize: 40).width
        #expect(pair < apart)
    }

    @Test func missingFontFileIsAnErrorNamingThePath() {
        let path = "/nonexistent/fonts/NoSuchFont.ttf"
        do {
            _ = try FontFace(path: path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .cannotOpen)
            #expect(error.path == path)
            #expect(error.description.contains(path))
        }
    }

    @Test func fileThatIsNotAFontIsAnErrorNamingThePath() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-font-\(UUID().uuidString).ttf")
        try Data("this is a text file, not a font".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try FontFace(path: url.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notAFont)
            #expect(error.description.contains(url.path))
        }
        #expect(throws: FontError.self) { try FontFace(path: "") }
        #expect(throws: FontError.self) { try FontFace(path: "/tmp") }
        #expect(throws: FontError.self) { try FontFace(path: FontFace.defaultPath + "\u{0}.png") }
    }

    @Test func oddStringsNeverTrap() {
        let strings = [
            "", " ", "\u{0}", "a\u{0}b", "🗺️👍🏽🏳️‍🌈", "e\u{301}\u{302}\u{303}\u{304}", "\u{301}", "\u{200D}\u{FEFF}\u{202E}abc",
            "مرحبا", "地図", "\u{FFFF}\u{10FFFF}", "\t\n\r", String(repeating: "a\u{301}🙂", count: 3334),
        ]
        let canvas = Canvas()
        canvas.prepare(width: 64, height: 32, background: Self.background)
        for text in strings {
            for pixelSize in [Int.min, -3, 0, 1, 7, 10, 20, 300, Int.max] {
                let layout = font.layout(text, pixelSize: pixelSize)
                #expect(FontFace.pixelSizes.contains(layout.pixelSize))
                #expect(layout.scalarCount <= FontFace.maximumScalars)
                #expect(layout.metrics.width >= 0 && layout.metrics.height >= 0)
                for (left, top) in [(0, 0), (-30, -10), (50, 20), (Int.min, Int.max), (Int.max, 5)] {
                    canvas.draw(layout, left: left, top: top, paint: Paint(Self.ink), halo: Paint(Self.haloColour), haloRadius: 2)
                }
            }
        }
        #expect(font.layout(strings.last!, pixelSize: 10).scalarCount == FontFace.maximumScalars)
    }

    @Test func missingGlyphsShowTheFontsBox() {
        // No emoji in DejaVu Sans: the missing-glyph box takes space and has ink.
        let layout = font.layout("🙂", pixelSize: 20)
        #expect(layout.metrics.width > 5)
        #expect(!layout.glyphs.isEmpty)
    }

    @Test(arguments: [1, 2, 3])
    func haloIsADiscAroundInk(reach: Int) {
        // One inked pixel in the middle of a 9 x 9 mask spreads to the pixels within reach + 0.5.
        var mask = [UInt8](repeating: 0, count: 81)
        mask[40] = 200
        let rim = Canvas.dilate(mask, width: 9, height: 9, reach: reach)
        for y in 0..<9 {
            for x in 0..<9 {
                let inside = (x - 4) * (x - 4) + (y - 4) * (y - 4) <= reach * reach + reach
                #expect(rim[y * 9 + x] == (inside ? 200 : 0), "\(x),\(y) at reach \(reach)")
            }
        }
    }

    @Test func sameTextSamePixels() throws {
        func draw(_ face: FontFace) -> [UInt8] {
            let canvas = Canvas()
            canvas.prepare(width: 200, height: 30, background: Self.background)
            canvas.draw(face.layout(Self.attribution, pixelSize: 12), left: 3, top: 5, paint: Paint(Self.ink), halo: Paint(Self.haloColour))
            return Array(canvas.bytes)
        }
        let first = draw(font)
        _ = font.layout("other glyphs at other sizes", pixelSize: 31)
        #expect(draw(font) == first)
        #expect(try draw(FontFace()) == first)
    }

    // MARK: - Helpers

    private func pixel(_ canvas: Canvas, _ x: Int, _ y: Int) -> RGBA {
        let p = canvas.row(y) + 3 * x
        return RGBA(red: p[0], green: p[1], blue: p[2])
    }

    /// Whether some pixel took exactly `colour`: a halo shows in full somewhere.
    private func changedToward(_ canvas: Canvas, _ colour: RGBA) -> Bool {
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where pixel(canvas, x, y) == colour { return true }
        }
        return false
    }
}
