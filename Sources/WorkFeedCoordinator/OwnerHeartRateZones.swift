import WorkFeedModel

/// Every owner's heart-rate zones as the index thread needs them for heatmap specs and cache keys
/// (docs/settings.md): the configured thresholds for everyone, and the owners whose own setting
/// gives other bounds. Held in memory (one small list per such owner), loaded at start and changed
/// with the index by SETTINGS, so that no cache key needs a read of the index.
struct OwnerHeartRateZones {
    /// The heatmap style's thresholds.
    let configured: [Double]
    /// `heatmap.max_hr_percentages`.
    let percentages: [Double]
    /// Only owners whose zones are not the configured ones.
    private var byOwner: [String: HeartRateZoneBounds] = [:]

    init(configured: [Double], percentages: [Double], settings: [String: HeartRateZoneSetting]) {
        self.configured = configured
        self.percentages = percentages
        for (owner, setting) in settings { set(setting, of: owner) }
    }

    /// The zones `owner`'s heatmaps are drawn with.
    func bounds(for owner: String) -> HeartRateZoneBounds {
        byOwner[owner] ?? HeartRateZoneBounds(bounds: configured, source: .configured)
    }

    /// The thresholds to put in `owner`'s heatmap specs; `nil` for the configured ones, so that
    /// owners without zones of their own share one spec (and keep their keys).
    func thresholds(for owner: String) -> [Double]? { byOwner[owner]?.bounds }

    /// Takes an owner's new setting (after SETTINGS stored it).
    /// - Returns: whether the owner's thresholds changed, and with them their heatmaps' keys.
    @discardableResult
    mutating func set(_ setting: HeartRateZoneSetting?, of owner: String) -> Bool {
        let before = thresholds(for: owner)
        let resolved = HeartRateZoneBounds.resolve(setting, configured: configured, percentages: percentages)
        // Bounds equal to the configured ones draw the same picture: the same spec, the same key.
        byOwner[owner] = resolved.source == .configured || resolved.bounds == configured ? nil : resolved
        return thresholds(for: owner) != before
    }
}
