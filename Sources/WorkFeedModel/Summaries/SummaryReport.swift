/// One bucket's figures as the API, the control protocol's SUMMARY reply and `workctl summary
/// --json` show them (docs/openapi.yaml, `SummaryFigures`): distance and elevation gain as a
/// ``Quantity`` in the owner's units, as a workout gives them (``FeedItem``); seconds,
/// kilocalories, whole beats a minute.
public struct SummaryFigures: Sendable, Hashable, Codable {
    public var count: Int
    /// Kilometres or miles, to a millionth (``Quantity/distance(metres:units:)``).
    public var distance: Quantity
    /// Seconds in motion: each workout's moving time where its device recorded one, else its
    /// elapsed time.
    public var movingTime: Double
    public var elapsedTime: Double
    /// Metres or feet climbed: `elevationGain`, the name a workout gives it (``FeedItem``), so
    /// that one fact has one name everywhere (issue 36; it was `climb` here).
    public var elevationGain: Quantity
    /// Kilocalories of the workouts whose device wrote them; absent when none did, as a workout's
    /// unknown calories are absent (``FeedItem/calories``), never 0 (issue 36).
    public var calories: Double?
    /// Weighted by each workout's elapsed time, over the workouts with heart rate, from their
    /// averages as measured, rounded once to whole beats a minute (``SummaryTotals/figures``).
    public var heartRateAverage: Double?
    /// Whole beats a minute.
    public var heartRateMax: Double?
    /// Seconds in each of the owner's heart-rate zones, lowest first (``SummaryReport/heartRateZones``).
    public var timeInZones: [Double]
    /// The workout with the greatest distance.
    public var longest: WorkoutFigure?
    /// The workout of at least a kilometre with the greatest average speed over its moving time
    /// (the best pace, for runs and walks); only per activity, and not for `other`.
    public var fastest: WorkoutFigure?

    /// A workout that holds an extreme.
    public struct WorkoutFigure: Sendable, Hashable, Codable {
        public var id: WorkoutID
        /// Kilometres or miles, as the workout gives it (``FeedItem/distance``).
        public var distance: Quantity
        public var movingTime: Double
        /// Its average speed over the moving time as a workout gives it (``FeedItem/speed``):
        /// `{"unit", "value"}` in the owner's units (km/h or mph, to a hundredth); absent where
        /// it did not move. It was bare metres a second here (issue 36).
        public var speed: Quantity?

        /// - Parameter metres: its distance in metres.
        public init(id: WorkoutID, metres: Double, movingTime: Double, units: UnitSystem) {
            self.id = id
            distance = .distance(metres: metres, units: units)
            self.movingTime = movingTime
            speed = FeedItem.speed(distance: metres, seconds: movingTime, units: units)
        }

        /// The same figure with its distance and speed in `units`.
        public func expressed(in units: UnitSystem) -> WorkoutFigure {
            WorkoutFigure(id: id, metres: distance.metres ?? 0, movingTime: movingTime, units: units)
        }
    }

    public init(
        count: Int, distance: Quantity, movingTime: Double, elapsedTime: Double, elevationGain: Quantity, calories: Double?,
        heartRateAverage: Double?,
        heartRateMax: Double?, timeInZones: [Double], longest: WorkoutFigure?, fastest: WorkoutFigure?
    ) {
        self.count = count
        self.distance = distance
        self.movingTime = movingTime
        self.elapsedTime = elapsedTime
        self.elevationGain = elevationGain
        self.calories = calories
        self.heartRateAverage = heartRateAverage
        self.heartRateMax = heartRateMax
        self.timeInZones = timeInZones
        self.longest = longest
        self.fastest = fastest
    }

    /// The same figures with the lengths and speeds in `units` (the owner's: ``OwnerSettings/units``).
    public func expressed(in units: UnitSystem) -> SummaryFigures {
        var figures = self
        figures.distance = distance.expressed(in: units)
        figures.elevationGain = elevationGain.expressed(in: units)
        figures.longest = longest?.expressed(in: units)
        figures.fastest = fastest?.expressed(in: units)
        return figures
    }

    /// A bucket without workouts, with `zones` zones.
    public static func empty(zones: Int) -> SummaryFigures {
        SummaryFigures(
            count: 0, distance: .distance(metres: 0, units: .metric), movingTime: 0, elapsedTime: 0,
            elevationGain: .elevation(metres: 0, units: .metric), calories: nil, heartRateAverage: nil, heartRateMax: nil,
            timeInZones: [Double](repeating: 0, count: zones), longest: nil, fastest: nil)
    }
}

/// One bucket: its local start and end (with their offsets), the figures of all its workouts,
/// and those of each activity it has.
public struct SummaryBucket: Sendable, Hashable, Codable {
    /// The bucket's first instant in the owner's zone, `2026-03-30T00:00:00+02:00`.
    public var start: String
    /// The next bucket's start.
    public var end: String
    public var total: SummaryFigures
    /// Only the activities with a workout in the bucket (all of them when the request named none,
    /// the one it named otherwise).
    public var activities: [String: SummaryFigures]

    public init(start: String, end: String, total: SummaryFigures, activities: [String: SummaryFigures]) {
        self.start = start
        self.end = end
        self.total = total
        self.activities = activities
    }
}

/// An owner's summaries over a range (`GET /v1/summaries`, SUMMARY, `workctl summary --json`).
public struct SummaryReport: Sendable, Hashable, Codable {
    public var period: SummaryPeriod
    /// The IANA zone the buckets are in: the owner's setting, else that of their latest workout.
    public var timeZone: String
    public var firstWeekday: Weekday
    /// The lower bounds of the heart-rate zones above the first, in bpm (``SummaryFigures/timeInZones``).
    public var heartRateZones: [Double]
    /// The change log's anchor when the summary was read: `GET /v1/changes?since=` it for what
    /// moved afterwards.
    public var anchor: Int64
    /// Present while the owner's summaries are being built again (a new time zone, first
    /// weekday or zones): buckets count only the workouts done so far.
    public var rebuilding: SummaryRebuild?
    /// Every bucket from the one holding `from` to the one holding `to`, oldest first, empty ones
    /// included.
    public var buckets: [SummaryBucket]

    public init(
        period: SummaryPeriod, timeZone: String, firstWeekday: Weekday, heartRateZones: [Double], anchor: Int64, rebuilding: SummaryRebuild?,
        buckets: [SummaryBucket]
    ) {
        self.period = period
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.heartRateZones = heartRateZones
        self.anchor = anchor
        self.rebuilding = rebuilding
        self.buckets = buckets
    }

    /// The same report with every length and speed in `units` (read by the coordinator as it answers).
    public func expressed(in units: UnitSystem) -> SummaryReport {
        var report = self
        report.buckets = buckets.map { bucket in
            var bucket = bucket
            bucket.total = bucket.total.expressed(in: units)
            bucket.activities = bucket.activities.mapValues { $0.expressed(in: units) }
            return bucket
        }
        return report
    }
}

/// How far a rebuild of an owner's summaries has come.
public struct SummaryRebuild: Sendable, Hashable, Codable {
    public var done: Int
    public var total: Int

    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}
