/// The heart-rate zones an owner's heatmaps are drawn with: their lower bounds above the first
/// zone, in bpm (the heatmap style's `thresholds`), and where they come from. SETTINGS answers
/// with it, and so do `GET`/`PUT /v1/settings` and `workctl settings`.
public struct HeartRateZoneBounds: Sendable, Hashable, Codable {
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// The coordinator's configured zones (`heatmap.thresholds`): the owner set none, or set
        /// bounds for another number of zones than the heatmap now has.
        case configured
        /// Percentages of the owner's maximum heart rate (`heatmap.max_hr_percentages`).
        case maximumHeartRate = "maximum-heart-rate"
        /// The owner's own bounds.
        case bounds
    }

    public var bounds: [Double]
    public var source: Source

    public init(bounds: [Double], source: Source) {
        self.bounds = bounds
        self.source = source
    }

    /// The percentages of the maximum heart rate at which the common five-zone model puts the
    /// lower bounds of zones 2 to 5 (50–60–70–80–90–100 %; docs/settings.md gives its sources).
    public static let fiveZonePercentages: [Double] = [60, 70, 80, 90]

    /// The default percentages for a heatmap with `boundCount + 1` zones: the five-zone model's,
    /// its lowest zones merged when there are fewer (4 zones: 70, 80, 90); `nil` for more than
    /// five zones, which need percentages configured.
    public static func defaultPercentages(boundCount: Int) -> [Double]? {
        guard (1...fiveZonePercentages.count).contains(boundCount) else { return nil }
        return Array(fiveZonePercentages.suffix(boundCount))
    }

    /// The zones an owner's heatmaps use: the owner's setting, when it fills the configured number
    /// of zones, else the configured ones.
    /// - Parameters:
    ///   - configured: the heatmap style's thresholds.
    ///   - percentages: of the maximum heart rate, one per threshold.
    public static func resolve(_ setting: HeartRateZoneSetting?, configured: [Double], percentages: [Double]) -> HeartRateZoneBounds {
        guard let setting else { return HeartRateZoneBounds(bounds: configured, source: .configured) }
        let bounds = setting.thresholds(percentages: percentages)
        guard bounds.count == configured.count, (try? setting.validate(zoneCount: configured.count + 1)) != nil else {
            return HeartRateZoneBounds(bounds: configured, source: .configured)
        }
        switch setting {
        case .maximumHeartRate: return HeartRateZoneBounds(bounds: bounds, source: .maximumHeartRate)
        case .bounds: return HeartRateZoneBounds(bounds: bounds, source: .bounds)
        }
    }
}
