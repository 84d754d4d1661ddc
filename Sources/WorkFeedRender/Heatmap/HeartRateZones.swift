import WorkFeedModel
import WorkFeedStyle

/// Picks a heart-rate zone's colour for an average rate.
///
/// Zone `z` spans `[thresholds[z - 1], thresholds[z])`: zone 0 is everything below
/// `thresholds[0]`, the top zone everything from the last threshold up. Each zone has one colour
/// and one opacity (its colour's alpha, opaque by default), so the same zone reads the same
/// wherever it is on the route and on either theme's map: no pale and saturated shades of one zone.
struct HeartRateZones {
    let thresholds: [Double]
    let colours: [RGBA]

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

    /// The zone's colour at its own opacity, not yet flattened onto a background.
    func paint(for bpm: Double) -> Paint {
        Paint(colours[zone(for: bpm)])
    }
}
