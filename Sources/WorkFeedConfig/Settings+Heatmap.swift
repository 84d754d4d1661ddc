import WorkFeedModel
import WorkFeedStyle

extension Settings {
    /// The heatmap's style under `prefix` (`heatmap`), every key optional.
    func heatmapStyle(_ prefix: String, default style: HeatmapStyle) throws(ConfigurationError) -> HeatmapStyle {
        var h = style
        h.segments = try int("\(prefix).segments", default: h.segments, in: 1...1000)
        h.lineWidth = try double("\(prefix).line_width", default: h.lineWidth, in: 0.5...64)
        let thresholdTexts = strings("\(prefix).thresholds", default: h.thresholds.map { String($0) })
        var thresholds: [Double] = []
        for text in thresholdTexts {
            guard let value = Double(text), value > 0, value < 300, value > thresholds.last ?? 0 else {
                throw invalid("\(prefix).thresholds", thresholdTexts.joined(separator: ","), "increasing heart rates in bpm, between 0 and 300")
            }
            thresholds.append(value)
        }
        let colourTexts = strings("\(prefix).colors", default: h.zoneColors.map(\.description))
        var colours: [RGBA] = []
        for text in colourTexts {
            guard let colour = RGBA(hex: text) else {
                throw invalid("\(prefix).colors", colourTexts.joined(separator: ","), "colours written #rrggbb or #rrggbbaa")
            }
            colours.append(colour)
        }
        guard colours.count == thresholds.count + 1 else {
            throw invalid(
                "\(prefix).colors", colourTexts.joined(separator: ","),
                "one colour per zone: \(thresholds.count + 1) colours for \(thresholds.count) thresholds")
        }
        h.thresholds = thresholds
        h.zoneColors = colours
        return h
    }
}

extension Settings {
    /// `heatmap.max_hr_percentages`: one percentage of the maximum heart rate per threshold, 30 to
    /// 100, increasing by at least one point (so that rounding to whole bpm keeps the bounds
    /// apart); by default the five-zone model's (``HeartRateZoneBounds/defaultPercentages(boundCount:)``).
    func maximumHeartRatePercentages(_ key: String, boundCount: Int) throws(ConfigurationError) -> [Double] {
        let fallback = HeartRateZoneBounds.defaultPercentages(boundCount: boundCount)
        let texts = strings(key, default: [])
        guard !texts.isEmpty else {
            guard let fallback else {
                throw invalid(
                    key, "",
                    "the heatmap has \(boundCount + 1) zones, more than the five-zone model's: give \(boundCount) percentages of the maximum heart rate"
                )
            }
            return fallback
        }
        let allowed = "\(boundCount) increasing percentages (one per heatmap.thresholds entry), 30 to 100, at least 1 apart"
        var percentages: [Double] = []
        for text in texts {
            guard let value = Double(text), (30...100).contains(value), value >= (percentages.last ?? 29) + 1 else {
                throw invalid(key, texts.joined(separator: ","), allowed)
            }
            percentages.append(value)
        }
        guard percentages.count == boundCount else { throw invalid(key, texts.joined(separator: ","), allowed) }
        return percentages
    }
}
