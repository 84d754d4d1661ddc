/// The size of a laid-out line of text: a box that holds every pixel of its ink.
///
/// The box runs from the baseline up by `ascent` and down by `descent`, and across `width` pixels
/// from the pen's start. `ascent` and `descent` are at least the font's own line metrics, so a
/// line's box has the same height whatever letters it holds, and grow only for ink that reaches
/// beyond them; `width` grows likewise when a glyph reaches past its advance.
public struct TextMetrics: Sendable, Hashable {
    public var width: Int
    /// Pixels above the baseline.
    public var ascent: Int
    /// Pixels below the baseline.
    public var descent: Int

    public init(width: Int, ascent: Int, descent: Int) {
        self.width = width
        self.ascent = ascent
        self.descent = descent
    }

    public var height: Int { ascent + descent }
}

/// A line of text as glyph bitmaps placed in its ``TextMetrics`` box, ready to draw at any
/// integer position; made by ``FontFace/layout(_:pixelSize:)``.
///
/// The bitmaps are shared, immutable and hold no FreeType state, so a layout outlives changes to
/// its face's cache and may be drawn many times.
public struct TextLayout: Sendable {
    /// The pixel size it was laid out at, after clamping to ``FontFace/pixelSizes``.
    public var pixelSize: Int
    public var metrics: TextMetrics
    /// How many Unicode scalars of the text were laid out: fewer than the text has when it is
    /// longer than ``FontFace/maximumScalars``.
    public var scalarCount: Int
    /// Bitmaps with their top-left corners in box coordinates (the box's top-left is 0, 0).
    var glyphs: [PlacedGlyph]

    /// The baseline's distance from the box's top.
    public var baseline: Int { metrics.ascent }
}

/// A glyph's bitmap with its top-left corner in its line's box.
struct PlacedGlyph: Sendable {
    var x: Int
    var y: Int
    var glyph: Glyph
}

/// One glyph rendered at one pixel size: 8-bit coverage and where it sits relative to the pen.
final class Glyph: Sendable {
    let width: Int
    let height: Int
    /// Columns from the pen position to the bitmap's left edge (FreeType's `bitmap_left`).
    let left: Int
    /// Rows from the baseline up to the bitmap's top edge (FreeType's `bitmap_top`).
    let top: Int
    /// The unhinted advance in 1/64 pixel.
    let advance: Int
    /// `width * height` bytes, rows top to bottom; 255 is fully covered.
    let coverage: [UInt8]

    init(width: Int, height: Int, left: Int, top: Int, advance: Int, coverage: [UInt8]) {
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.advance = advance
        self.coverage = coverage
    }

    /// A glyph FreeType could not load or render: no ink, no advance.
    static let empty = Glyph(width: 0, height: 0, left: 0, top: 0, advance: 0, coverage: [])
}
