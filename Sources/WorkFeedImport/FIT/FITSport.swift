import WorkFeedModel

/// FIT's `sport` enumeration, as far as the feed distinguishes it.
enum FITSport {
    /// The FIT profile's name for a sport code, `nil` for codes the feed shows as "other".
    static func name(_ code: Int64) -> String? {
        switch code {
        case 1: return "running"
        case 2: return "cycling"
        case 11: return "walking"
        case 17: return "hiking"
        case 21: return "e_biking"
        default: return nil
        }
    }

    /// The feed's activity for a sport code (1 running, 2 cycling, 11 walking, …; the rest other).
    static func activity(_ code: Int64?) -> ActivityType {
        ActivityType(sourceName: code.flatMap(name))
    }
}
