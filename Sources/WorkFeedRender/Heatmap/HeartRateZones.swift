import WorkFeedModel

/// Picks a heart-rate zone's colour and opacity for an average rate.
///
/// Zone `z` spans `[low, high)`: zone 0 is `[thresholds[0] - 40, thresholds[0])`, middle zones lie
/// between consecutive thresholds, and the open top zone is given the previous zone's width
/// (40 bpm when there is only one threshold). Opacity is `0.4 + 0.6 * depth` with
/// `depth = clamp((bpm - low) / (high - low), 0, 1)`, so a rate just inside a zone is pale and one
/// near its top is solid. A rate below zone 0's low end has depth 0; one above the top zone's span
/// has depth 1.
struct HeartRateZones {
    let thresholds: [Double]
    let colours: [RGBA]

    /// Width given to the bottom zone, and to the top one when there is a single threshold.
    static let openZoneWidth = 40.0

    /// - Returns: `nil` when thresholds are not finite and strictly increasing, or when there is
    ///   not exactly one more colour than thresholds.
    init?(style: HeatmapStyle) {
        let t = style.thresholds
        guard !t.isEmpty, style.zoneColors.count == t.count + 1, t.allSatisfy(\.isFinite) else { return nil }
        for index in t.indices.dropFirst() where !(t[index - 1] < t[index]) { return nil }
        thresholds = t
        colours = style.zoneColors
    }

    func zone(for bpm: Double) -> Int {
        var zone = 0
        while zone < thresholds.count, bpm >= thresholds[zone] { zone += 1 }
        return zone
    }

    /// The `[low, high)` bounds of `zone`.
    func bounds(of zone: Int) -> (low: Double, high: Double) {
        let last = thresholds.count
        if zone == 0 { return (thresholds[0] - Self.openZoneWidth, thresholds[0]) }
        if zone == last {
            let width = last >= 2 ? thresholds[last - 1] - thresholds[last - 2] : Self.openZoneWidth
            return (thresholds[last - 1], thresholds[last - 1] + width)
        }
        return (thresholds[zone - 1], thresholds[zone])
    }

    func opacity(for bpm: Double) -> Double {
        let (low, high) = bounds(of: zone(for: bpm))
        let depth = min(max((bpm - low) / (high - low), 0), 1)
        return 0.4 + 0.6 * depth
    }

    /// The zone colour at its opacity, not yet flattened onto a background.
    func paint(for bpm: Double) -> Paint {
        Paint(colours[zone(for: bpm)], opacity: Float(opacity(for: bpm)))
    }
}
