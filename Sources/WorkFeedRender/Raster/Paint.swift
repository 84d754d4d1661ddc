import WorkFeedModel
import WorkFeedStyle

/// A colour in 0...255 Float channels with its opacity in 0...1, ready for blending.
///
/// Blending happens in sRGB space, as browsers and MapKit draw strokes; each composite rounds to
/// 8 bits once, so the result does not depend on anything but the inputs.
struct Paint {
    var red: Float
    var green: Float
    var blue: Float
    var opacity: Float

    init(_ colour: RGBA, opacity: Float = 1) {
        red = Float(colour.red)
        green = Float(colour.green)
        blue = Float(colour.blue)
        self.opacity = Float(colour.alpha) / 255 * min(max(opacity, 0), 1)
    }

    init(red: Float, green: Float, blue: Float, opacity: Float) {
        self.red = red
        self.green = green
        self.blue = blue
        self.opacity = opacity
    }

    /// This paint laid over an opaque `background` and flattened to an opaque colour.
    func flattened(over background: RGBA) -> Paint {
        let under = Paint(background)
        return Paint(
            red: under.red + (red - under.red) * opacity,
            green: under.green + (green - under.green) * opacity,
            blue: under.blue + (blue - under.blue) * opacity,
            opacity: 1)
    }
}
