import Foundation

/// How a workout's climb and distance are worked out from its track when the device did not
/// write them (docs/import.md, "Climb and distance"): values no device could have measured are
/// dropped first, and a rise counts only past a hysteresis threshold that depends on how the
/// altitude was measured.
public enum TrackFigures {
    /// How rises are counted, for one kind of altitude.
    public struct ClimbRule: Sendable, Hashable {
        /// A rise counts only once the altitude is this many metres above the last low point (and
        /// a new low point is taken only this far below the reference): GoldenCheetah's hysteresis.
        public var hysteresis: Double
        /// A step between two samples larger than ``stepTolerance`` plus this many metres a second
        /// is a measuring error, not a climb or a descent.
        public var maximumVerticalSpeed: Double
        public var stepTolerance: Double

        public init(hysteresis: Double, maximumVerticalSpeed: Double, stepTolerance: Double) {
            self.hysteresis = hysteresis
            self.maximumVerticalSpeed = maximumVerticalSpeed
            self.stepTolerance = stepTolerance
        }

        /// A barometric altimeter (or a device that fuses one in, or filters its altitude itself).
        /// Its noise is a few decimetres, and its devices count rises of a metre or two.
        public static let altimeter = ClimbRule(hysteresis: 1.5, maximumVerticalSpeed: 5, stepTolerance: 5)
        /// GPS altitude, as phones and receivers without an altimeter write it (Open GPX Tracker on
        /// an iPhone, OpenTracks, the TomTom Runner 3, the Polar M400): its error wanders by ten
        /// metres and more within minutes, so smaller rises are not told apart from it.
        public static let gpsAltitude = ClimbRule(hysteresis: 10, maximumVerticalSpeed: 0.5, stepTolerance: 3)
    }

    /// Altitudes outside this range are not measurements: the lowest land is about 430 m below sea
    /// level, and a FIT altitude of raw 0 decodes to exactly -500 m.
    public static let plausibleAltitude = -450.0...9_000.0
    /// A device's climb of 0 is "not recorded" when the track climbs at least this much.
    public static let clearClimb = 10.0
    /// A horizontal step longer than this many metres plus ``maximumSpeed`` times its seconds is a
    /// GPS jump (a point kilometres away for one second), not a distance covered.
    public static let jumpTolerance = 50.0
    /// Metres a second: faster than any workout moves.
    public static let maximumSpeed = 100.0
    /// Above this many runs between implausible steps a track is not filtered at all (bounded work
    /// for any input).
    static let maximumRuns = 256
    /// A run between implausible steps this long (in samples) is kept whatever its neighbours say.
    static let longestExcursion = 60

    /// The rule for a route's altitudes, by how its file says they were measured
    /// (``Route/altitudeSource``): ``ClimbRule/altimeter`` for a barometric altimeter,
    /// ``ClimbRule/gpsAltitude`` for GPS and where the file does not say. Not by the numbers: an
    /// iPhone writes GPS altitudes with decimals, and taking them for an altimeter's gave a flat
    /// walk in Tokyo 1,738 m of climb.
    public static func climbRule(for route: Route) -> ClimbRule {
        (route.altitudeSource ?? .gps).climbRule
    }

    /// Metres climbed along the route, or `nil` when it has fewer than two usable altitudes.
    /// Segments are counted apart (no climb across a pause).
    public static func elevationGain(of route: Route, rule: ClimbRule? = nil) -> Double? {
        let rule = rule ?? climbRule(for: route)
        var gain = 0.0
        var usable = 0
        for segment in route.segments {
            let samples = segment.compactMap { point -> (time: Double?, elevation: Double)? in
                guard point.isValidCoordinate, let elevation = point.elevation, plausibleAltitude.contains(elevation) else { return nil }
                return (point.time?.timeIntervalSince1970, elevation)
            }
            let piece = pieces(count: samples.count) { a, b in
                let step = abs(samples[b].elevation - samples[a].elevation)
                return step <= rule.stepTolerance + rule.maximumVerticalSpeed * seconds(samples[a].time, samples[b].time)
            }
            var reference: Double?
            var currentPiece: Int?
            for index in samples.indices {
                guard let number = piece[index] else { continue }
                usable += 1
                let elevation = samples[index].elevation
                guard let base = reference, number == currentPiece else {
                    reference = elevation
                    currentPiece = number
                    continue
                }
                if elevation - base >= rule.hysteresis {
                    gain += elevation - base
                    reference = elevation
                } else if base - elevation >= rule.hysteresis {
                    reference = elevation
                }
            }
        }
        return usable >= 2 ? gain : nil
    }

    /// Metres along the route's segments (pauses between them excluded), GPS jumps left out.
    public static func distance(of route: Route) -> Double {
        var distance = 0.0
        for segment in route.segments {
            let points = segment.filter(\.isValidCoordinate)
            let piece = pieces(count: points.count) { a, b in
                WorkoutSummary.haversine(points[a], points[b])
                    <= jumpTolerance + maximumSpeed * seconds(points[a].time?.timeIntervalSince1970, points[b].time?.timeIntervalSince1970)
            }
            var previous: (point: RoutePoint, piece: Int)?
            for index in points.indices {
                guard let number = piece[index] else { continue }
                if let previous, previous.piece == number { distance += WorkoutSummary.haversine(previous.point, points[index]) }
                previous = (points[index], number)
            }
        }
        return distance
    }

    /// Seconds from one sample to a later one. Without both times, or when they do not go
    /// forward (a course whose points all carry one time), no speed can be checked, so the step
    /// is allowed (infinite time).
    private static func seconds(_ a: Double?, _ b: Double?) -> Double {
        guard let a, let b, b > a else { return .infinity }
        return b - a
    }

    /// Which samples to keep, and in which piece: the series is cut into runs wherever a step
    /// between neighbours is implausible. The longest run is kept, then each shorter one (longest
    /// first) that joins the kept samples before and after it plausibly. A spike or a dip (a GPS
    /// point kilometres away for one second, a barometer's glitch), or a first or last sample far
    /// from its neighbours, is a short run that joins nothing and is left out. A run of
    /// ``longestExcursion`` samples or more is never an error: it is kept even when it does not
    /// join, and the kept samples are cut into pieces wherever they still do not join (the step
    /// between two pieces counts for nothing). When more than a quarter of the steps are
    /// implausible, the times do not describe the movement (a planned route with made-up times)
    /// and everything is kept as one piece.
    /// - Parameters:
    ///   - count: how many samples.
    ///   - plausible: whether going from sample `a` to a later sample `b` is possible.
    /// - Returns: for each sample, the number of its piece, or `nil` when it is left out.
    static func pieces(count: Int, _ plausible: (Int, Int) -> Bool) -> [Int?] {
        var starts = [0]
        if count > 1 {
            for index in 1..<count where !plausible(index - 1, index) { starts.append(index) }
        }
        guard starts.count > 1, starts.count <= maximumRuns, (starts.count - 1) * 4 <= count - 1 else {
            return Array(repeating: 0, count: count)
        }
        let runs = starts.indices.map { run in starts[run]..<(run + 1 < starts.count ? starts[run + 1] : count) }
        let byLength = runs.indices.sorted { runs[$0].count != runs[$1].count ? runs[$0].count > runs[$1].count : $0 < $1 }
        var accepted = Array(repeating: false, count: runs.count)
        for run in byLength {
            if runs[run].count < longestExcursion {
                let before = runs.indices[..<run].last { accepted[$0] }
                let after = runs.indices[(run + 1)...].first { accepted[$0] }
                if let before, !plausible(runs[before].upperBound - 1, runs[run].lowerBound) { continue }
                if let after, !plausible(runs[run].upperBound - 1, runs[after].lowerBound) { continue }
            }
            accepted[run] = true
        }
        var piece: [Int?] = Array(repeating: nil, count: count)
        var number = 0
        var last: Int?
        for run in runs.indices where accepted[run] {
            if let last, !plausible(last, runs[run].lowerBound) { number += 1 }
            for index in runs[run] { piece[index] = number }
            last = runs[run].upperBound - 1
        }
        return piece
    }
}
