import Foundation

/// A bucket's figures as the index keeps them: sums in whole units (``SummaryContribution``) that
/// workouts are added to and taken from, and the extremes (maximum heart rate, longest, fastest)
/// that cannot be taken from, so they are found again among the bucket's workouts when the one
/// holding them leaves (docs/summaries.md).
public struct SummaryTotals: Sendable, Hashable {
    public var count: Int64 = 0
    public var sums = SummaryContribution(
        distance: 0, movingTime: 0, elapsedTime: 0, climb: 0, calories: 0, heartRateTime: 0, heartRateWeighted: 0, heartRateMax: nil,
        zoneTimes: [])
    public var longest: Extreme?
    public var fastest: Extreme?

    /// The workout that holds an extreme: its id, millimetres and moving milliseconds.
    public struct Extreme: Sendable, Hashable {
        public var id: WorkoutID
        public var distance: Int64
        public var movingTime: Int64

        public init(id: WorkoutID, distance: Int64, movingTime: Int64) {
            self.id = id
            self.distance = distance
            self.movingTime = movingTime
        }

        /// Metres a second.
        public var speed: Double { movingTime > 0 ? Double(distance) / Double(movingTime) : 0 }
    }

    public init() {}

    /// The shortest workout that can be the fastest, in millimetres: a few hundred metres of GPS
    /// noise must not be anyone's fastest run.
    public static let fastestMinimumDistance: Int64 = 1_000_000

    /// Whether a workout of `activity` can be a bucket's fastest: only activities measured by a
    /// pace or a speed (``FeedItem/Measure``), and only within one activity (a ride is not a
    /// faster run), so the bucket of all activities has no fastest.
    public static func hasFastest(_ activity: ActivityType?) -> Bool {
        guard let activity else { return false }
        switch FeedItem.Measure(activity) {
        case .pace, .speed: return true
        case .none: return false
        }
    }

    /// Counts a workout in. `activity` is the bucket's (`nil` for all activities).
    public mutating func add(_ workout: SummaryContribution, id: WorkoutID, activity: ActivityType?) {
        count += 1
        sums.distance += workout.distance
        sums.movingTime += workout.movingTime
        sums.elapsedTime += workout.elapsedTime
        sums.climb += workout.climb
        sums.calories += workout.calories
        sums.heartRateTime += workout.heartRateTime
        sums.heartRateWeighted += workout.heartRateWeighted
        if sums.zoneTimes.count < workout.zoneTimes.count {
            sums.zoneTimes += [Int64](repeating: 0, count: workout.zoneTimes.count - sums.zoneTimes.count)
        }
        for (zone, time) in workout.zoneTimes.enumerated() { sums.zoneTimes[zone] += time }
        considerExtremes(workout, id: id, activity: activity)
    }

    /// Takes a workout out of the sums. Whether its extremes must be found again is
    /// ``holdsExtreme(_:id:)``'s question.
    public mutating func subtract(_ workout: SummaryContribution) {
        count -= 1
        sums.distance -= workout.distance
        sums.movingTime -= workout.movingTime
        sums.elapsedTime -= workout.elapsedTime
        sums.climb -= workout.climb
        sums.calories -= workout.calories
        sums.heartRateTime -= workout.heartRateTime
        sums.heartRateWeighted -= workout.heartRateWeighted
        for (zone, time) in workout.zoneTimes.enumerated() where zone < sums.zoneTimes.count { sums.zoneTimes[zone] -= time }
    }

    /// Whether the workout holds one of this bucket's extremes.
    public func holdsExtreme(_ workout: SummaryContribution, id: WorkoutID) -> Bool {
        longest?.id == id || fastest?.id == id || (workout.heartRateMax != nil && workout.heartRateMax == sums.heartRateMax)
    }

    /// Takes a workout's maximum heart rate, distance and speed into the extremes. Ties go to the
    /// smaller id, so that the extremes do not depend on the order workouts came in.
    public mutating func considerExtremes(_ workout: SummaryContribution, id: WorkoutID, activity: ActivityType?) {
        if let bpm = workout.heartRateMax, bpm > (sums.heartRateMax ?? -1) { sums.heartRateMax = bpm }
        let candidate = Extreme(id: id, distance: workout.distance, movingTime: workout.movingTime)
        if workout.distance > 0 {
            if let longest,
                !(workout.distance > longest.distance || (workout.distance == longest.distance && id.description < longest.id.description))
            {
            } else {
                longest = candidate
            }
        }
        if Self.hasFastest(activity), workout.distance >= Self.fastestMinimumDistance, workout.movingTime > 0 {
            if let fastest, !Self.faster(candidate, than: fastest) {
            } else {
                fastest = candidate
            }
        }
    }

    /// Compared exactly, in integers (distance × other's time), ties to the smaller id.
    static func faster(_ a: Extreme, than b: Extreme) -> Bool {
        let left = a.distance.multipliedFullWidth(by: b.movingTime)
        let right = b.distance.multipliedFullWidth(by: a.movingTime)
        if left.high != right.high { return left.high > right.high }
        if left.low != right.low { return left.low > right.low }
        return a.id.description < b.id.description
    }

    /// Forgets the extremes, to find them again among the bucket's workouts.
    public mutating func clearExtremes() {
        sums.heartRateMax = nil
        longest = nil
        fastest = nil
    }

    /// The figures as the API shows them: kilometres and metres, seconds, kilocalories, whole
    /// beats a minute; lengths and speeds metric until ``SummaryReport/expressed(in:)`` gives them
    /// the owner's units.
    public var figures: SummaryFigures {
        func extreme(_ value: Extreme?) -> SummaryFigures.WorkoutFigure? {
            value.map { .init(id: $0.id, metres: Double($0.distance) / 1000, movingTime: Double($0.movingTime) / 1000, units: .metric) }
        }
        return SummaryFigures(
            count: Int(count), distance: .distance(metres: Double(sums.distance) / 1000, units: .metric),
            movingTime: Double(sums.movingTime) / 1000, elapsedTime: Double(sums.elapsedTime) / 1000,
            elevationGain: .elevation(metres: Double(sums.climb) / 1000, units: .metric),
            calories: sums.calories > 0 ? Double(sums.calories) / 1000 : nil, heartRateAverage: heartRateAverage,
            heartRateMax: FeedItem.beatsPerMinute(sums.heartRateMax), timeInZones: sums.zoneTimes.map { Double($0) / 1000 },
            longest: extreme(longest), fastest: extreme(fastest))
    }

    /// The bucket's duration-weighted average heart rate, rounded once to whole beats a minute,
    /// halves up, in integers (exact: no float can put 146.5 on the wrong side), from the
    /// workouts' averages as measured, not as their cards round them (docs/summaries.md): each
    /// rounded first would move it by up to half a beat a workout.
    var heartRateAverage: Double? {
        guard sums.heartRateTime > 0, sums.heartRateWeighted >= 0 else { return nil }
        let (time, weighted) = (sums.heartRateTime, sums.heartRateWeighted)
        return Double((2 * weighted + time) / (2 * time))
    }
}
