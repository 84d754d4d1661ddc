import CFreeType
import CHarfBuzz
import Foundation
import WorkFeedModel
import WorkFeedStyle

/// One font file opened through FreeType, shaped through HarfBuzz, and the glyph bitmaps it has
/// rendered so far.
///
/// Maps carry names (places, streets, water) and an attribution line at @1x, @2x and @3x. Text is
/// shaped by HarfBuzz on the same FreeType face (`hb_ft_font_create_referenced`): kerning,
/// ligatures, and the joining and reordering that Arabic or Devanagari need, with advances
/// unhinted so that widths keep the design's proportions. Glyphs are rendered as 8-bit coverage;
/// upright text with FreeType's *light* hinting (it snaps outlines vertically only, so baseline and
/// x-height land on whole pixels and stay sharp at 10 px), each glyph at the nearest quarter pixel
/// (with whole pixels, rounding showed as uneven gaps: "Ope n"). Text along a street is rendered
/// rotated by FreeType itself, unhinted, so that letters stay crisp at any angle instead of
/// being resampled.
///
/// Not thread-safe: a FreeType face, its glyph slot and the HarfBuzz buffer are shared state, so
/// each render thread opens its own. Same font file, FreeType and HarfBuzz versions, same pixels:
/// the cache only saves work.
///
/// ```swift
/// let font = try FontFace(path: BasemapDefaults.fontPath)
/// let line = font.layout("© OpenStreetMap contributors", pixelSize: 10 * scale)
/// // line.metrics.width x line.metrics.height, plus padding, is the box for a corner.
/// ```
public final class FontFace {
    /// Noto Sans from Debian's `fonts-noto-core`: Latin, Greek and Cyrillic, including ©.
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
    /// Rotated glyphs are rendered at whole degrees.
    static let angleSteps = 360

    /// The font file, as given.
    public let path: String
    private let library: FT_Library
    private let face: FT_Face
    private let shaper: OpaquePointer
    private let buffer: OpaquePointer
    /// The pixel size last set on the face, 0 before the first.
    private var activeSize = 0
    private var cache: [GlyphKey: Glyph] = [:]
    /// Names shaped for drawing along a line: the same streets come back picture after picture.
    private var runs: [RunKey: ShapedRun?] = [:]

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
        // HarfBuzz takes a reference on the face and reads it through FreeType, so the shaped
        // advances are the ones FreeType renders; unhinted, like the pen's.
        guard let shaper = hb_ft_font_create_referenced(face), let buffer = hb_buffer_create(),
            hb_buffer_allocation_successful(buffer) != 0
        else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw FontError(.freetype, path: path, "HarfBuzz could not open the face (out of memory)")
        }
        hb_ft_font_set_load_flags(shaper, wf_ft_load_no_hinting)
        self.library = library
        self.face = face
        self.shaper = shaper
        self.buffer = buffer
    }

    deinit {
        hb_buffer_destroy(buffer)
        hb_font_destroy(shaper)
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Lays out `text` on one line at `pixelSize`, shaped by HarfBuzz.
    ///
    /// Characters the font lacks show its missing-glyph box: ask ``covers(_:)`` first, or use a
    /// ``FontSet``, where that must not happen. No string traps: text beyond ``maximumScalars``
    /// is dropped, and a glyph FreeType cannot render takes no space.
    public func layout(_ text: String, pixelSize: Int) -> TextLayout {
        let size = min(max(pixelSize, Self.pixelSizes.lowerBound), Self.pixelSizes.upperBound)
        guard let shaped = shape(text, size: size), let sizeObject = face.pointee.size else {
            return TextLayout(pixelSize: size, metrics: TextMetrics(width: 0, ascent: 0, descent: 0), scalarCount: 0, glyphs: [])
        }
        // The face's line metrics, rounded outward to whole pixels (26.6 fixed point).
        let lineMetrics = sizeObject.pointee.metrics
        var ascent = Self.ceilPixels(lineMetrics.ascender)
        var descent = Self.ceilPixels(-lineMetrics.descender)

        // Pen positions in 1/64 pixel; each glyph's origin is rounded to a quarter pixel: a whole
        // pixel plus a phase the glyph is rendered at.
        var placed: [(glyph: Glyph, x: Int, y: Int)] = []
        for item in shaped.glyphs {
            let quarters = (item.x + 8) >> 4
            let glyph = self.glyph(item.index, size: size, phase: quarters & 3)
            placed.append((glyph, quarters >> 2, (item.y + 32) >> 6))
        }

        // The box: the advance and the line metrics, grown to hold all ink.
        var minX = 0
        var maxX = (shaped.width + 63) >> 6
        for (glyph, x, y) in placed where glyph.width > 0 && glyph.height > 0 {
            minX = min(minX, x + glyph.left)
            maxX = max(maxX, x + glyph.left + glyph.width)
            ascent = max(ascent, glyph.top + y)
            descent = max(descent, glyph.height - glyph.top - y)
        }
        let glyphs = placed.compactMap { glyph, x, y -> PlacedGlyph? in
            guard glyph.width > 0, glyph.height > 0 else { return nil }
            return PlacedGlyph(x: x + glyph.left - minX, y: ascent - glyph.top - y, glyph: glyph)
        }
        return TextLayout(
            pixelSize: size, metrics: TextMetrics(width: maxX - minX, ascent: ascent, descent: descent),
            scalarCount: shaped.scalarCount, glyphs: glyphs)
    }

    /// The box ``layout(_:pixelSize:)`` gives `text`, for placing it (and a padded background)
    /// before drawing.
    public func measure(_ text: String, pixelSize: Int) -> TextMetrics {
        layout(text, pixelSize: pixelSize).metrics
    }

    /// Whether this font draws every character of `text` with a glyph of its own: after shaping,
    /// no glyph is the missing-glyph box. Spaces and joiners count as drawn.
    public func covers(_ text: String) -> Bool {
        guard let shaped = shape(text, size: 16) else { return false }
        return !shaped.glyphs.contains { $0.index == 0 }
    }

    /// `text` shaped at `pixelSize` for drawing along a line: glyph indices with pen positions in
    /// 1/64 pixel along the baseline, the advance of the whole, and the face's ascent and descent.
    /// `nil` when the font lacks a character (see ``covers(_:)``) or the text is empty.
    func shapedRun(_ text: String, pixelSize: Int) -> ShapedRun? {
        let size = min(max(pixelSize, Self.pixelSizes.lowerBound), Self.pixelSizes.upperBound)
        let key = RunKey(text: text, size: size)
        if let cached = runs[key] { return cached }
        let run = shapeRun(text, size: size)
        if runs.count >= Self.cacheLimit { runs.removeAll(keepingCapacity: true) }
        runs[key] = run
        return run
    }

    private func shapeRun(_ text: String, size: Int) -> ShapedRun? {
        guard let shaped = shape(text, size: size), !shaped.glyphs.isEmpty, !shaped.glyphs.contains(where: { $0.index == 0 }),
            let sizeObject = face.pointee.size
        else { return nil }
        let lineMetrics = sizeObject.pointee.metrics
        return ShapedRun(
            pixelSize: size, glyphs: shaped.glyphs, width: shaped.width, ascent: Int(lineMetrics.ascender),
            descent: Int(-lineMetrics.descender))
    }

    /// Glyph `index` at `pixelSize`, turned `angle` whole degrees clockwise on the screen, with its
    /// origin `phaseX` and `phaseY` sixteenths of a pixel right of and below a whole pixel.
    func rotatedGlyph(_ index: UInt32, pixelSize: Int, angle: Int, phaseX: Int, phaseY: Int) -> Glyph {
        let size = min(max(pixelSize, Self.pixelSizes.lowerBound), Self.pixelSizes.upperBound)
        let turn = ((angle % Self.angleSteps) + Self.angleSteps) % Self.angleSteps
        let key = GlyphKey(index: index, size: size, phase: phaseX & 15 | (phaseY & 15) << 4 | (turn + 1) << 8)
        if let cached = cache[key] { return cached }
        guard activate(size) else { return .empty }
        let radians = Double(turn) * .pi / 180
        let cosine = FT_Fixed((cos(radians) * 65536).rounded())
        let sine = FT_Fixed((sin(radians) * 65536).rounded())
        // A clockwise turn on the screen (y down) is a counter-clockwise one by -angle in the
        // font's y-up space; the shift is in 26.6, y up.
        var matrix = FT_Matrix(xx: cosine, xy: sine, yx: -sine, yy: cosine)
        var shift = FT_Vector(x: FT_Pos((phaseX & 15) * 4), y: FT_Pos(-(phaseY & 15) * 4))
        let glyph = render(index, matrix: &matrix, shift: &shift, flags: wf_ft_load_render_unhinted)
        store(glyph, key)
        return glyph
    }

    /// `text` shaped at `size`: glyph indices and pen positions in 1/64 pixel.
    private func shape(_ text: String, size: Int) -> (glyphs: [ShapedGlyph], width: Int, scalarCount: Int)? {
        guard activate(size) else { return nil }
        let scalars = text.unicodeScalars.prefix(Self.maximumScalars)
        // A C string ends at the first NUL: what follows one is dropped, as FreeType would.
        let kept = scalars.prefix { $0.value != 0 }
        var bounded = String.UnicodeScalarView()
        bounded.append(contentsOf: kept)
        let line = String(bounded)
        hb_buffer_clear_contents(buffer)
        hb_buffer_add_utf8(buffer, line, -1, 0, -1)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(shaper, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count), let positions = hb_buffer_get_glyph_positions(buffer, &count)
        else { return ([], 0, scalars.count) }
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(Int(count))
        var pen = 0
        var rise = 0
        for index in 0..<Int(count) {
            let position = positions[index]
            glyphs.append(
                ShapedGlyph(
                    index: infos[index].codepoint, x: pen + Int(position.x_offset), y: rise + Int(position.y_offset),
                    advance: Int(position.x_advance)))
            pen += Int(position.x_advance)
            rise += Int(position.y_advance)
        }
        return (glyphs, pen, scalars.count)
    }

    /// Sets the face's size unless it is already set; false if FreeType refuses it.
    private func activate(_ size: Int) -> Bool {
        guard size != activeSize else { return true }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) == 0 else {
            activeSize = 0
            return false
        }
        hb_ft_font_changed(shaper)
        activeSize = size
        return true
    }

    /// Upright glyph `index` at `size` and `phase` quarters of a pixel right of the pen's whole
    /// pixel, rendered once and then taken from the cache.
    private func glyph(_ index: UInt32, size: Int, phase: Int) -> Glyph {
        let key = GlyphKey(index: index, size: size, phase: phase)
        if let cached = cache[key] { return cached }
        // FreeType hints first and then applies the transform, so the shift moves the hinted
        // outline and the bitmap's `bitmap_left` includes it.
        var shift = FT_Vector(x: FT_Pos(phase * 16), y: 0)
        let glyph = render(index, matrix: nil, shift: &shift, flags: wf_ft_load_render_light)
        store(glyph, key)
        return glyph
    }

    private func store(_ glyph: Glyph, _ key: GlyphKey) {
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[key] = glyph
    }

    /// Renders glyph `index` at the active size through `matrix` and `shift` into a ``Glyph`` that
    /// owns its bitmap.
    private func render(
        _ index: UInt32, matrix: UnsafeMutablePointer<FT_Matrix>?, shift: UnsafeMutablePointer<FT_Vector>, flags: FT_Int32
    ) -> Glyph {
        FT_Set_Transform(face, matrix, shift)
        defer { FT_Set_Transform(face, nil, nil) }
        guard FT_Load_Glyph(face, FT_UInt(index), flags) == 0, let slot = face.pointee.glyph else {
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

/// One glyph of shaped text: the font's glyph index and its pen position, in 1/64 pixel, from the
/// start of the line along the baseline (`y` up).
struct ShapedGlyph: Sendable, Hashable {
    var index: UInt32
    var x: Int
    var y: Int
    var advance: Int
}

/// A line of text shaped for drawing glyph by glyph (along a street); lengths in 1/64 pixel.
struct ShapedRun: Sendable {
    var pixelSize: Int
    var glyphs: [ShapedGlyph]
    var width: Int
    var ascent: Int
    var descent: Int
}

private struct RunKey: Hashable {
    var text: String
    var size: Int
}

/// A glyph cache key: the glyph index, the pixel size and the phase (and angle, for turned glyphs).
private struct GlyphKey: Hashable {
    var index: UInt32
    var size: Int
    var phase: Int
}
