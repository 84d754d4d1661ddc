import Foundation

/// What one workout adds to each bucket it counts in, in whole units (millimetres, milliseconds,
/// calories), so that adding a workout and taking it away again leaves a bucket exactly as it was
/// (docs/summaries.md, "Exact sums"). Built in one place from the workout's row, by the same rules
/// as the feed's figures (``FeedItem``).
public struct SummaryContribution: Sendable, Hashable {
    /// Millimetres.
    public var distance: Int64
    /// Milliseconds in motion: the device's moving time where it recorded one, else the elapsed time.
    public var movingTime: Int64
    /// Milliseconds from start to end, never less than ``movingTime`` (``WorkoutTimes``).
    public var elapsedTime: Int64
    /// Millimetres climbed.
    public var climb: Int64
    /// Calories (a thousandth of a kilocalorie).
    public var calories: Int64
    /// Milliseconds of elapsed time of a workout with an average heart rate: the weight of its
    /// average in the bucket's duration-weighted average.
    public var heartRateTime: Int64
    /// The average heart rate times ``heartRateTime``, rounded to a beat-millisecond a minute.
    public var heartRateWeighted: Int64
    /// Beats a minute.
    public var heartRateMax: Double?
    /// Milliseconds in each of the owner's heart-rate zones, lowest first.
    public var zoneTimes: [Int64]

    public init(
        distance: Int64, movingTime: Int64, elapsedTime: Int64, climb: Int64, calories: Int64, heartRateTime: Int64,
        heartRateWeighted: Int64, heartRateMax: Double?, zoneTimes: [Int64]
    ) {
        self.distance = distance
        self.movingTime = movingTime
        self.elapsedTime = elapsedTime
        self.climb = climb
        self.calories = calories
        self.heartRateTime = heartRateTime
        self.heartRateWeighted = heartRateWeighted
        self.heartRateMax = heartRateMax
        self.zoneTimes = zoneTimes
    }

    /// A workout's contribution.
    /// - Parameters:
    ///   - heartRate: its stored heart-rate samples, for the time in each zone.
    ///   - zoneBounds: the owner's zones' lower bounds above the first (``HeartRateZoneBounds``).
    public init(record: WorkoutRecord, heartRate: [HeartRateSample], zoneBounds: [Double]) {
        func whole(_ value: Double?, _ scale: Double) -> Int64 {
            guard let value, value.isFinite, value > 0 else { return 0 }
            return Int64((value * scale).rounded())
        }
        let times = record.times
        distance = whole(record.distance, 1000)
        elapsedTime = whole(times.elapsed, 1000)
        movingTime = whole(times.movingOrElapsed, 1000)
        climb = whole(record.elevationGain, 1000)
        calories = whole(record.calories, 1000)
        if let average = record.heartRateAverage, average.isFinite, average > 0 {
            heartRateTime = elapsedTime
            heartRateWeighted = Int64((average * Double(elapsedTime)).rounded())
        } else {
            heartRateTime = 0
            heartRateWeighted = 0
        }
        heartRateMax = record.heartRateMax.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        zoneTimes = Self.zoneTimes(heartRate, bounds: zoneBounds)
    }

    /// The longest interval between two samples counted in a zone, in seconds: a longer gap is a
    /// pause or a lost strap, and counts in none.
    public static let maximumSampleGap = 60.0

    /// Milliseconds in each zone: each interval between two consecutive samples (at most
    /// ``maximumSampleGap``) counts in the zone of its first sample, as the heatmap colours a
    /// segment (a zone starts at its lower bound).
    public static func zoneTimes(_ samples: [HeartRateSample], bounds: [Double]) -> [Int64] {
        var times = [Int64](repeating: 0, count: bounds.count + 1)
        guard samples.count > 1 else { return times }
        for position in 1..<samples.count {
            let gap = samples[position].time.timeIntervalSince(samples[position - 1].time)
            guard gap > 0, gap <= maximumSampleGap else { continue }
            let bpm = samples[position - 1].bpm
            let zone = bounds.firstIndex { bpm < $0 } ?? bounds.count
            times[zone] += Int64((gap * 1000).rounded())
        }
        return times
    }
}
