import Foundation
import WorkFeedModel
import WorkFeedPlaces
import WorkFeedStyle

/// What a picture drawn without a map says instead (docs/rendering.md, "Pictures without a map"):
/// the place its route starts in and a scale bar, on a translucent box in the bottom-left corner
/// (the top-left when a legend is there), so that it is never a bare line on the background.
struct CaptionLayout {
    var place: TextLayout?
    var scale: TextLayout
    /// The bar's length in pixels, for the distance `scale` names.
    var barLength: Int
    var box: LabelBox
    var pad: Int
}

extension Renderer {
    /// Points of the place's name and of the scale bar's figure (times the picture's scale).
    static let captionPlaceSize = 11.0
    static let captionScaleSize = 9.0
    /// The longest a scale bar may be, as a share of the picture's width.
    static let scaleBarShare = 0.3

    /// The caption of a picture without a map, laid out; `nil` without a font.
    /// - Parameters:
    ///   - place: the label of the route's start (``StartPlace``), `nil` far from every place.
    ///   - metresPerPixel: the picture's scale at the route's middle latitude.
    func captionLayout(place: String?, metresPerPixel: Double, units: UnitSystem, spec: PictureSpec) -> CaptionLayout? {
        guard let font = mapFonts()?.main, metresPerPixel.isFinite, metresPerPixel > 0 else { return nil }
        let scale = spec.scale
        let placeText = place.map { font.layout($0, pixelSize: max(Int((Self.captionPlaceSize * Double(scale)).rounded()), 1)) }
        let (metres, words) = Self.scaleBarLength(maximumMetres: Double(canvas.width) * Self.scaleBarShare * metresPerPixel, units: units)
        let scaleText = font.layout(words, pixelSize: max(Int((Self.captionScaleSize * Double(scale)).rounded()), 1))
        let barLength = max(Int((metres / metresPerPixel).rounded()), 1)
        let pad = 4 * scale
        let gap = 2 * scale
        let barRow = max(scaleText.metrics.height, 6 * scale)
        let width = max(placeText?.metrics.width ?? 0, barLength + gap * 2 + scaleText.metrics.width) + 2 * pad
        let height = (placeText.map { $0.metrics.height + gap } ?? 0) + barRow + 2 * pad
        let boxWidth = Float(min(width, canvas.width))
        let boxHeight = Float(min(height, canvas.height))
        var box = LabelBox(minX: 0, minY: Float(canvas.height) - boxHeight, maxX: boxWidth, maxY: Float(canvas.height))
        if let legendBox, legendBox.intersects(box) { box = LabelBox(minX: 0, minY: 0, maxX: boxWidth, maxY: boxHeight) }
        return CaptionLayout(place: placeText, scale: scaleText, barLength: barLength, box: box, pad: pad)
    }

    /// Draws the caption over the picture, in colours that read on the theme's background; on a
    /// see-through one, in white on a translucent dark box, which reads on a photo.
    func drawCaption(_ caption: CaptionLayout, style: RouteStyle, scale: Int) {
        let box = caption.box
        let dark = style.isSeeThrough || Self.isDark(style.background)
        let ink = Paint(dark ? RGBA(red: 0xE8, green: 0xE8, blue: 0xE8) : RGBA(red: 0x30, green: 0x30, blue: 0x30))
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRectangle(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY)
        area.paint(onto: canvas, style.isSeeThrough ? Paint(RGBA(red: 0, green: 0, blue: 0, alpha: 0x60)) : Paint(style.background, opacity: 0.8))
        let left = Int(box.minX) + caption.pad
        var top = Int(box.minY) + caption.pad
        if let place = caption.place {
            canvas.draw(place, left: left, top: top, paint: ink)
            top += place.metrics.height + 2 * scale
        }
        // The bar: a line with a tick at each end, its figure after it, on the figure's middle.
        let row = max(caption.scale.metrics.height, 6 * scale)
        let middle = Float(top + row / 2)
        let thickness = Float(max(scale, 1)) * 1.5
        let tick = Float(3 * scale)
        let minX = Float(left)
        let maxX = Float(left + caption.barLength)
        area.prepare(width: canvas.width, height: canvas.height)
        area.addRectangle(minX: minX, minY: middle - thickness / 2, maxX: maxX, maxY: middle + thickness / 2)
        area.addRectangle(minX: minX, minY: middle - tick, maxX: minX + thickness, maxY: middle + thickness / 2)
        area.addRectangle(minX: maxX - thickness, minY: middle - tick, maxX: maxX, maxY: middle + thickness / 2)
        area.paint(onto: canvas, ink)
        canvas.draw(caption.scale, left: left + caption.barLength + 2 * scale * 2, top: top + (row - caption.scale.metrics.height) / 2, paint: ink)
    }

    /// The longest round distance (1, 2 or 5 times a power of ten, in metres and kilometres, or
    /// feet and miles) not longer than `maximumMetres`, in metres, and its words (`500 m`, `2 km`,
    /// `1,000 ft`, `5 mi`).
    static func scaleBarLength(maximumMetres: Double, units: UnitSystem) -> (metres: Double, words: String) {
        func round(_ value: Double) -> Double {
            guard value >= 1 else { return 1 }
            let power = pow(10, (log10(value)).rounded(.down))
            return [5.0, 2, 1].map { $0 * power }.first { $0 <= value } ?? power
        }
        func figure(_ value: Double) -> String {
            let whole = Int(value.rounded())
            return whole >= 1_000 ? "\(whole / 1_000),\(String(whole % 1_000).leftPadded(to: 3))" : "\(whole)"
        }
        switch units {
        case .metric:
            if maximumMetres >= 1_000 {
                let kilometres = round(maximumMetres / 1_000)
                return (kilometres * 1_000, "\(figure(kilometres)) km")
            }
            let metres = round(maximumMetres)
            return (metres, "\(figure(metres)) m")
        case .imperial:
            let mile = 1_609.344
            let foot = 0.3048
            if maximumMetres >= mile {
                let miles = round(maximumMetres / mile)
                return (miles * mile, "\(figure(miles)) mi")
            }
            let feet = round(maximumMetres / foot)
            return (feet * foot, "\(figure(feet)) ft")
        }
    }

    /// Whether a background is dark (its relative luminance under a half), so text on it is light.
    static func isDark(_ colour: RGBA) -> Bool {
        0.2126 * Double(colour.red) + 0.7152 * Double(colour.green) + 0.0722 * Double(colour.blue) < 128
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(length - count, 0)) + self }
}
