import Foundation

/// The kind of a workout, as the feed shows it.
///
/// Sources name activities in many ways (`running`, `Running`, `HKWorkoutActivityTypeRunning`, a FIT
/// sport code); ``ActivityType/init(sourceName:)`` folds them into the few the feed knows, and everything
/// else is ``other``.
public enum ActivityType: String, Sendable, Hashable, Codable, CaseIterable {
    case running
    case walking
    case cycling
    case other

    /// Folds a source's activity name into one the feed knows. A name made only of digits is one
    /// of Strava's numeric activity types (its GPX export writes `<type>9</type>` for a run):
    /// see ``init(stravaTypeCode:)``.
    public init(sourceName: String?) {
        guard let name = sourceName?.trimmingCharacters(in: .whitespaces).lowercased() else {
            self = .other
            return
        }
        if !name.isEmpty, name.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            self = Int(name).map(Self.init(stravaTypeCode:)) ?? .other
        } else if name.contains("run") || name.contains("jog") {
            self = .running
        } else if name.contains("walk") || name.contains("hik") {
            self = .walking
        } else if name.contains("cycl") || name.contains("bik") || name.contains("ride") {
            self = .cycling
        } else {
            self = .other
        }
    }
}

extension ActivityType {
    /// Strava's numeric activity types, as its GPX export writes them in `<type>`, by name. The
    /// feed folds them like the names: runs are running, rides cycling, walks and hikes walking,
    /// the rest other (hand cycles and wheelchairs too, as for Apple Health).
    public static let stravaTypeNames: [Int: String] = [
        1: "Ride", 2: "AlpineSki", 3: "BackcountrySki", 4: "Hike", 5: "IceSkate", 6: "InlineSkate", 7: "NordicSki",
        8: "RollerSki", 9: "Run", 10: "Walk", 11: "Workout", 12: "Snowboard", 13: "Snowshoe", 14: "Kitesurf", 15: "Windsurf",
        16: "Swim", 17: "VirtualRide", 18: "EBikeRide", 19: "Velomobile", 21: "Canoeing", 22: "Kayaking", 23: "Rowing",
        24: "StandUpPaddling", 25: "Surfing", 26: "Crossfit", 27: "Elliptical", 28: "RockClimbing", 29: "StairStepper",
        30: "WeightTraining", 31: "Yoga", 51: "Handcycle", 52: "Wheelchair", 53: "VirtualRun",
    ]

    /// The feed's activity for one of Strava's numeric activity types (1 Ride, 4 Hike, 9 Run,
    /// 10 Walk, …; see ``stravaTypeNames``); an unknown code is ``other``.
    public init(stravaTypeCode code: Int) {
        switch code {
        case 9, 53: self = .running
        case 1, 17, 18, 19: self = .cycling
        case 4, 10: self = .walking
        default: self = .other
        }
    }
}

extension ActivityType {
    /// Words that name an activity in the names people and apps give workouts and their files, in
    /// the languages of the data seen so far (English, German, Dutch, French, Spanish, Portuguese,
    /// Italian), accents and case folded. A word counts whole (`run`, not `runkeeper`); an entry
    /// ending in `*` counts as the start of a word (`radfahr*`: Radfahrt, Radfahren).
    public static let activityWords: [(word: String, activity: ActivityType)] = [
        ("run", .running), ("runs", .running), ("running*", .running), ("jog*", .running), ("lauf", .running),
        ("laufen", .running), ("dauerlauf", .running), ("hardlo*", .running), ("corrida", .running), ("correr", .running),
        ("corsa", .running), ("footing", .running),
        ("walk*", .walking), ("hike", .walking), ("hikes", .walking), ("hiking", .walking), ("stroll", .walking),
        ("spazier*", .walking), ("wander*", .walking), ("wandel*", .walking), ("marche", .walking), ("randonn*", .walking),
        ("caminhada", .walking), ("caminata", .walking), ("passeggiata", .walking), ("trek*", .walking),
        ("ride", .cycling), ("rides", .cycling), ("bike*", .cycling), ("biking", .cycling), ("cycling", .cycling),
        ("radfahr*", .cycling), ("radtour", .cycling), ("fahrrad*", .cycling), ("fiets*", .cycling), ("velo", .cycling),
        ("ciclismo", .cycling), ("pedalada", .cycling), ("bici*", .cycling),
    ]

    /// The activity a name speaks of (`quarta-feira corrida matutina` is a run,
    /// `Zeeland__Activities__Radfahrt__Leihrad_…` a ride), by ``activityWords``: the first word of
    /// the name that is one of them decides. `nil` when none is.
    public init?(words text: String?) {
        guard let text else { return nil }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        let words = folded.split { !$0.isLetter }
        for word in words {
            for entry in Self.activityWords {
                let matches = entry.word.hasSuffix("*") ? word.hasPrefix(entry.word.dropLast()) : word == entry.word
                if matches {
                    self = entry.activity
                    return
                }
            }
        }
        return nil
    }
}
