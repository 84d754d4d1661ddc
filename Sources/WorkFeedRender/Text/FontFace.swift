import CFreeType
import WorkFeedModel

/// One font file opened through FreeType, and the glyph bitmaps it has rendered so far.
///
/// Maps carry an attribution line ("© OpenStreetMap contributors") at @1x and @2x, and street
/// labels will follow on the same path. Glyphs are rendered as 8-bit coverage with FreeType's
/// *light* hinting: it snaps outlines vertically only, so the baseline, x-height and horizontal
/// strokes land on whole pixels and stay sharp at 10 px, while shapes and widths keep the
/// design's proportions (full hinting also moves vertical stems, which distorts letters at small
/// sizes; without hinting, horizontal edges straddle pixels and look soft). The pen advances by unhinted widths plus the font's kerning, and each
/// glyph is rendered at the nearest quarter pixel: with whole pixels, rounding showed as uneven
/// gaps at 10 px ("Ope n", "contri butors").
///
/// Not thread-safe: a FreeType face and its glyph slot are shared state, so each render thread
/// opens its own. Same font file and FreeType version, same pixels: the cache only saves work.
///
/// ```swift
/// let font = try FontFace()
/// let line = font.layout("© OpenStreetMap contributors", pixelSize: 10 * scale)
/// // line.metrics.width x line.metrics.height, plus padding, is the box for a corner.
/// ```
public final class FontFace {
    /// DejaVu Sans from Debian's `fonts-dejavu-core`: wide Unicode coverage, including ©.
    public static let defaultPath = BasemapDefaults.fontPath
    /// Longest text laid out, in Unicode scalars; the rest is dropped. Map text is one short line,
    /// and the bound keeps a hostile string from costing more than a label.
    public static let maximumScalars = 200
    /// Pixel sizes (the em square, about 1.4 times a capital's height) outside this range are
    /// clamped into it.
    public static let pixelSizes = 1...128
    /// Glyph bitmaps kept before the cache starts over: many times the glyphs a map uses, and a
    /// bound on memory whatever strings arrive.
    static let cacheLimit = 4096

    /// The font file, as given.
    public let path: String
    private let library: FT_Library
    private let face: FT_Face
    private let hasKerning: Bool
    /// The pixel size last set on the face, 0 before the first.
    private var activeSize = 0
    private var cache: [GlyphKey: Glyph] = [:]

    /// Opens the font at `path`.
    ///
    /// - Throws: ``FontError`` naming `path` when the file is missing or unreadable, is not a
    ///   scalable font, or FreeType fails.
    public init(path: String = FontFace.defaultPath) throws(FontError) {
        self.path = path
        // A C string stops at the first NUL: FreeType would open a different file.
        guard !path.utf8.contains(0) else { throw FontError(.cannotOpen, path: path, "the path contains a NUL character") }
        var library: FT_Library?
        let started = FT_Init_FreeType(&library)
        guard started == 0, let library else {
            throw FontError(.freetype, path: path, Self.describe("FreeType could not start", started), freetypeError: started)
        }
        var face: FT_Face?
        let opened = FT_New_Face(library, path, 0, &face)
        guard opened == 0, let face else {
            FT_Done_FreeType(library)
            // FreeType's generic error codes (fterrdef.h): 0x01 cannot open resource, 0x02 unknown
            // file format, 0x03 broken file.
            switch opened {
            case 0x01:
                throw FontError(.cannotOpen, path: path, Self.describe("no such file, or it cannot be read", opened), freetypeError: opened)
            case 0x02, 0x03:
                throw FontError(.notAFont, path: path, Self.describe("not a font FreeType reads", opened), freetypeError: opened)
            default:
                throw FontError(.freetype, path: path, Self.describe("FreeType could not open it", opened), freetypeError: opened)
            }
        }
        guard wf_ft_is_scalable(face) != 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw FontError(.notAFont, path: path, "a bitmap-only font: text needs an outline font that scales to any size")
        }
        self.library = library
        self.face = face
        hasKerning = wf_ft_has_kerning(face) != 0
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Lays out `text` on one line at `pixelSize`.
    ///
    /// Each Unicode scalar maps to the font's glyph for it; scalars the font lacks (emoji, the
    /// scripts DejaVu does not cover) show its missing-glyph box, and
    /// combining marks sit where the font's own metrics put them, without shaping. No string
    /// traps: text beyond ``maximumScalars`` is dropped, and a glyph FreeType cannot render
    /// takes no space.
    public func layout(_ text: String, pixelSize: Int) -> TextLayout {
        let size = min(max(pixelSize, Self.pixelSizes.lowerBound), Self.pixelSizes.upperBound)
        guard activate(size), let sizeObject = face.pointee.size else {
            return TextLayout(pixelSize: size, metrics: TextMetrics(width: 0, ascent: 0, descent: 0), scalarCount: 0, glyphs: [])
        }
        // The face's line metrics, rounded outward to whole pixels (26.6 fixed point).
        let lineMetrics = sizeObject.pointee.metrics
        var ascent = Self.ceilPixels(lineMetrics.ascender)
        var descent = Self.ceilPixels(-lineMetrics.descender)

        // Pen positions in 1/64 pixel; each glyph's origin is rounded to a quarter pixel: a whole
        // pixel plus a phase the glyph is rendered at.
        var pen = 0
        var previous: FT_UInt = 0
        var placed: [(glyph: Glyph, x: Int)] = []
        var scalarCount = 0
        for scalar in text.unicodeScalars.prefix(Self.maximumScalars) {
            scalarCount += 1
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if hasKerning, previous != 0, index != 0 {
                var kerning = FT_Vector()
                // Unfitted: scaled to this size but not rounded, like the advances.
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_UNFITTED.rawValue), &kerning) == 0 {
                    pen += Int(kerning.x)
                }
            }
            let quarters = (pen + 8) >> 4
            let glyph = self.glyph(index, size: size, phase: quarters & 3)
            placed.append((glyph, quarters >> 2))
            pen += glyph.advance
            previous = index
        }

        // The box: the advance and the line metrics, grown to hold all ink.
        var minX = 0
        var maxX = (pen + 63) >> 6
        for (glyph, x) in placed where glyph.width > 0 && glyph.height > 0 {
            minX = min(minX, x + glyph.left)
            maxX = max(maxX, x + glyph.left + glyph.width)
            ascent = max(ascent, glyph.top)
            descent = max(descent, glyph.height - glyph.top)
        }
        let glyphs = placed.compactMap { glyph, x -> PlacedGlyph? in
            guard glyph.width > 0, glyph.height > 0 else { return nil }
            return PlacedGlyph(x: x + glyph.left - minX, y: ascent - glyph.top, glyph: glyph)
        }
        return TextLayout(
            pixelSize: size, metrics: TextMetrics(width: maxX - minX, ascent: ascent, descent: descent),
            scalarCount: scalarCount, glyphs: glyphs)
    }

    /// The box ``layout(_:pixelSize:)`` gives `text`, for placing it (and a padded background)
    /// before drawing.
    public func measure(_ text: String, pixelSize: Int) -> TextMetrics {
        layout(text, pixelSize: pixelSize).metrics
    }

    /// Sets the face's size unless it is already set; false if FreeType refuses it.
    private func activate(_ size: Int) -> Bool {
        guard size != activeSize else { return true }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) == 0 else {
            activeSize = 0
            return false
        }
        activeSize = size
        return true
    }

    /// Glyph `index` at the active `size` and `phase` quarters of a pixel right of the pen's
    /// whole pixel, rendered once and then taken from the cache.
    private func glyph(_ index: FT_UInt, size: Int, phase: Int) -> Glyph {
        let key = GlyphKey(index: index, size: size, phase: phase)
        if let cached = cache[key] { return cached }
        let glyph = render(index, phase: phase)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[key] = glyph
        return glyph
    }

    /// Renders glyph `index` at the active size into a ``Glyph`` that owns its bitmap.
    private func render(_ index: FT_UInt, phase: Int) -> Glyph {
        // FreeType hints first and then applies the transform, so the shift moves the hinted
        // outline and the bitmap's `bitmap_left` includes it.
        var shift = FT_Vector(x: FT_Pos(phase * 16), y: 0)
        FT_Set_Transform(face, nil, &shift)
        guard FT_Load_Glyph(face, index, wf_ft_load_render_light) == 0, let slot = face.pointee.glyph else {
            return .empty
        }
        // 16.16 fixed point to 26.6, rounded.
        let advance = (Int(slot.pointee.linearHoriAdvance) + 512) >> 10
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width)
        let height = Int(bitmap.rows)
        let pitch = Int(bitmap.pitch)
        guard width > 0, height > 0, let buffer = bitmap.buffer else {
            return Glyph(width: 0, height: 0, left: 0, top: 0, advance: advance, coverage: [])
        }
        let gray = bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue)
        let mono = bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_MONO.rawValue)
        guard (gray && abs(pitch) >= width) || (mono && abs(pitch) * 8 >= width) else {
            // Another pixel mode (colour, LCD) is not what was asked for: keep the spacing only.
            return Glyph(width: 0, height: 0, left: 0, top: 0, advance: advance, coverage: [])
        }
        let maxGray = max(Int(bitmap.num_grays) - 1, 1)
        var coverage = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            // A negative pitch means the rows are stored bottom to top.
            let row = buffer + (pitch >= 0 ? y * pitch : (height - 1 - y) * -pitch)
            for x in 0..<width {
                if gray {
                    coverage[y * width + x] = UInt8(min(Int(row[x]) * 255 / maxGray, 255))
                } else {
                    coverage[y * width + x] = row[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 ? 255 : 0
                }
            }
        }
        return Glyph(
            width: width, height: height, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
            advance: advance, coverage: coverage)
    }

    /// `value` in 1/64 pixel rounded up to whole pixels.
    private static func ceilPixels(_ value: FT_Pos) -> Int {
        (Int(value) + 63) >> 6
    }

    /// `message` with FreeType's own words for `error` when this build of FreeType has them.
    private static func describe(_ message: String, _ error: FT_Error) -> String {
        let code = "FreeType error 0x" + String(error, radix: 16)
        guard let words = FT_Error_String(error) else { return "\(message) (\(code))" }
        return "\(message) (\(code): \(String(cString: words)))"
    }
}

/// A glyph cache key: FreeType's glyph index, the pixel size and the quarter-pixel phase.
private struct GlyphKey: Hashable {
    var index: FT_UInt
    var size: Int
    var phase: Int
}
