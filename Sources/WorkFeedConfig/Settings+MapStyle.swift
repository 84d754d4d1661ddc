import Foundation
import WorkFeedModel

extension MapStyle {
    /// The configuration keys of one theme's map style, under `maps.<theme>.`.
    static let keyNames: [String] = {
        var names = MapArea.allCases.map(\.rawValue) + ["land"]
        for line in ["river", "stream", "rail"] { names += ["\(line).color", "\(line).width"] }
        for road in RoadClass.allCases {
            names += [
                "roads.\(road.rawValue).fill", "roads.\(road.rawValue).casing", "roads.\(road.rawValue).width", "roads.\(road.rawValue).casing_width",
            ]
        }
        names += ["attribution.text", "attribution.background", "attribution.size"]
        return names
    }()
}

extension Settings {
    /// A width over zoom, written as a list of zoom and width pairs: `[12, 1.6, 15, 3, 18, 13]`.
    func zoomWidth(_ key: String, default value: ZoomWidth) throws(ConfigurationError) -> ZoomWidth {
        let texts = strings(key, default: value.stops.map { String($0) })
        var stops: [Double] = []
        for text in texts {
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw invalid(key, texts.joined(separator: ","), "zoom and width pairs such as [12, 1.6, 15, 3, 18, 13]")
            }
            stops.append(number)
        }
        let width = ZoomWidth(base: value.base, stops: stops)
        guard width.isValid else {
            throw invalid(
                key, texts.joined(separator: ","),
                "zoom and width pairs with increasing zooms and widths from 0 to 256, such as [12, 1.6, 15, 3, 18, 13]")
        }
        return width
    }

    /// One theme's map style under `prefix` (`maps.light`), every key optional.
    func mapStyle(_ prefix: String, default style: MapStyle) throws(ConfigurationError) -> MapStyle {
        var s = style
        s.land = try colour("\(prefix).land", default: s.land)
        for area in MapArea.allCases {
            s[area] = try colour("\(prefix).\(area.rawValue)", default: s[area])
        }
        s.river = try lineStyle("\(prefix).river", default: s.river)
        s.stream = try lineStyle("\(prefix).stream", default: s.stream)
        s.rail = try lineStyle("\(prefix).rail", default: s.rail)
        for road in RoadClass.allCases {
            let key = "\(prefix).roads.\(road.rawValue)"
            var r = s[road]
            r.fill = try colour("\(key).fill", default: r.fill)
            r.casing = try colour("\(key).casing", default: r.casing)
            r.width = try zoomWidth("\(key).width", default: r.width)
            r.casingWidth = try zoomWidth("\(key).casing_width", default: r.casingWidth)
            s[road] = r
        }
        s.attributionText = try colour("\(prefix).attribution.text", default: s.attributionText)
        s.attributionBackground = try colour("\(prefix).attribution.background", default: s.attributionBackground)
        s.attributionSize = try double("\(prefix).attribution.size", default: s.attributionSize, in: 6...32)
        return s
    }

    private func lineStyle(_ prefix: String, default style: MapLineStyle) throws(ConfigurationError) -> MapLineStyle {
        MapLineStyle(
            color: try colour("\(prefix).color", default: style.color),
            width: try zoomWidth("\(prefix).width", default: style.width))
    }
}
