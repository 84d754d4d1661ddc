import Foundation
import WorkFeedModel
import WorkFeedStyle

extension MapStyle {
    /// The configuration keys of one theme's map style, under `maps.<theme>.`.
    static let keyNames: [String] = {
        var names = MapArea.allCases.map(\.rawValue) + ["land"]
        for line in MapLine.allCases { names += ["\(line.rawValue).color", "\(line.rawValue).width"] }
        for road in RoadClass.allCases {
            names += [
                "roads.\(road.rawValue).fill", "roads.\(road.rawValue).casing", "roads.\(road.rawValue).width", "roads.\(road.rawValue).casing_width",
            ]
        }
        names += ["attribution.text", "attribution.background", "attribution.size"]
        names += ["labels.halo", "labels.halo_width"]
        for kind in MapLabelKind.allCases {
            names += ["show", "size", "color", "min_zoom", "max_zoom"].map { "labels.\(kind.rawValue).\($0)" }
        }
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
        for line in MapLine.allCases {
            s[line] = try lineStyle("\(prefix).\(line.rawValue)", default: s[line])
        }
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
        s.labels.halo = try colour("\(prefix).labels.halo", default: s.labels.halo)
        s.labels.haloWidth = try double("\(prefix).labels.halo_width", default: s.labels.haloWidth, in: 0...2)
        for kind in MapLabelKind.allCases {
            let key = "\(prefix).labels.\(kind.rawValue)"
            var k = s.labels[kind]
            k.show = try bool("\(key).show", default: k.show)
            k.size = try double("\(key).size", default: k.size, in: 6...32)
            k.color = try colour("\(key).color", default: k.color)
            k.minZoom = try double("\(key).min_zoom", default: k.minZoom, in: 0...24)
            k.maxZoom = try double("\(key).max_zoom", default: k.maxZoom, in: 0...24)
            guard k.minZoom <= k.maxZoom else {
                throw invalid("\(key).max_zoom", String(k.maxZoom), "a zoom no lower than \(key).min_zoom (\(k.minZoom))")
            }
            s.labels[kind] = k
        }
        return s
    }

    private func lineStyle(_ prefix: String, default style: MapLineStyle) throws(ConfigurationError) -> MapLineStyle {
        MapLineStyle(
            color: try colour("\(prefix).color", default: style.color),
            width: try zoomWidth("\(prefix).width", default: style.width))
    }
}
