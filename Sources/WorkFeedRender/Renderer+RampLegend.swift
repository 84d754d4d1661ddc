import Foundation
import WorkFeedModel
import WorkFeedStyle

/// A pace or elevation picture's legend laid out in one corner: what it measures and in what unit
/// on top ("Pace (/km)"), the ramp's colours as a bar below it, and under the bar's two ends the
/// figures they stand for, the low end (slowest, lowest) at the left.
struct RampLegend {
    var box: LabelBox
    var title: TextLayout
    var low: TextLayout
    var high: TextLayout
    var colours: [RGBA]
    var padding: Int
    var rowHeight: Int
    var barHeight: Int
}

extension Renderer {
    /// The legend's first line for `measure` in `units`: "Pace (/km)", "Speed (mph)", "Elevation (m)".
    static func rampTitle(_ measure: RouteMeasure, units: UnitSystem) -> String {
        switch (measure, units) {
        case (.pace, .metric): "Pace (/km)"
        case (.pace, .imperial): "Pace (/mi)"
        case (.speed, .metric): "Speed (km/h)"
        case (.speed, .imperial): "Speed (mph)"
        case (.elevation, .metric): "Elevation (m)"
        case (.elevation, .imperial): "Elevation (ft)"
        }
    }

    /// A ramp end's figure as the feed's card would show it, in `units`: a pace in minutes and
    /// seconds a kilometre or a mile ("5:07", "1:02:05" past an hour) from a speed in metres a
    /// second, a speed in kilometres or miles an hour to a tenth ("24.5"), an altitude in whole
    /// metres or feet ("-3", "1,204" is written "1204": no grouping in so small a box).
    static func rampFigure(_ value: Double, _ measure: RouteMeasure, units: UnitSystem) -> String {
        let unitMetres = Quantity.Unit.distance(in: units).metres!
        switch measure {
        case .pace:
            guard value > 0, value.isFinite else { return "–" }
            let seconds = Int((unitMetres / value).rounded())
            let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
            func two(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
            return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
        case .speed:
            let tenths = Int((value * 3600 / unitMetres * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        case .elevation:
            return String(Int((value / Quantity.Unit.elevation(in: units).metres!).rounded()))
        }
    }

    /// Lays out the legend of `ramp` over `range` (metres a second, or metres) in the corner of
    /// the picture the route uses least (``legendCorner(spec:width:height:routeReach:)``).
    func layOutRampLegend(spec: PictureSpec, ramp: RampStyle, range: ClosedRange<Double>, routeReach: Float) -> RampLegend? {
        guard let font = mapFonts()?.main else { return nil }
        let scale = spec.scale
        let size = max(Int((Self.legendTextSize * Double(scale)).rounded()), 1)
        let title = font.layout(Self.rampTitle(ramp.measure, units: ramp.units), pixelSize: size)
        let low = font.layout(Self.rampFigure(range.lowerBound, ramp.measure, units: ramp.units), pixelSize: size)
        let high = font.layout(Self.rampFigure(range.upperBound, ramp.measure, units: ramp.units), pixelSize: size)
        let padding = 4 * scale
        let gap = 6 * scale
        let rowHeight = [title, low, high].map(\.metrics.height).max() ?? size
        let barHeight = max(rowHeight * 6 / 10, 1)
        let inner = max(title.metrics.width, low.metrics.width + gap + high.metrics.width, 48 * scale)
        let width = Float(padding * 2 + inner)
        let height = Float(padding * 2 + rowHeight * 2 + barHeight + 2 * scale)
        guard let box = legendCorner(spec: spec, width: width, height: height, routeReach: routeReach) else { return nil }
        return RampLegend(
            box: box, title: title, low: low, high: high, colours: ramp.colours, padding: padding, rowHeight: rowHeight, barHeight: barHeight)
    }

    /// Draws the legend on a translucent box in the theme's colours (``legendColours(spec:)``):
    /// the bar in opaque columns of pixels, each in its place's colour along the ramp.
    func drawRampLegend(_ legend: RampLegend, spec: PictureSpec) {
        let (background, ink) = legendColours(spec: spec)
        let box = legend.box
        fill(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, background)
        let left = Int(box.minX) + legend.padding
        let right = Int(box.maxX) - legend.padding
        var top = Int(box.minY) + legend.padding
        canvas.draw(legend.title, left: left, top: top, paint: Paint(ink))
        top += legend.rowHeight + spec.scale
        // The box lies inside the picture (``legendCorner``), and so does the bar inside it.
        let columns = max(right - left, 1)
        let bar = (0..<columns).map { Self.colour(of: Double($0) + 0.5, range: 0...Double(columns), colours: legend.colours) }
        for y in top..<min(top + legend.barHeight, canvas.height) {
            let line = canvas.row(y)
            for (column, colour) in bar.enumerated() where left + column < canvas.width {
                Canvas.fill(line, (left + column)..<(left + column + 1), (colour.red, colour.green, colour.blue))
            }
        }
        top += legend.barHeight + spec.scale
        canvas.draw(legend.low, left: left, top: top, paint: Paint(ink))
        canvas.draw(legend.high, left: right - legend.high.metrics.width, top: top, paint: Paint(ink))
    }
}
