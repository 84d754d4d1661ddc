public import Foundation

/// A workout's elapsed and moving time, by the one definition every place that shows or counts
/// them uses (the feed's ``FeedItem``, summaries' ``SummaryContribution``, `workctl show`):
/// docs/import.md, "Elapsed and moving time".
///
/// - **Moving time** is the device's timer time (pauses left out) where the file has one (FIT
///   session `total_timer_time`, TCX laps' `TotalTimeSeconds`, `TrackStatsExtension` `TimerTime`,
///   an Apple Health workout's `duration`); it is never computed from the track.
/// - **Elapsed time** is from the workout's start to its end (its file's first and last times),
///   and never less than the moving time: a timer cannot run longer than the clock, so where the
///   device timed more than the file's times span (the Forerunner 305 run's lap of 2,325 s over
///   38 trackpoints spanning 1,431 s; the Fitbit ride's lap of 2,283 s whose track starts 16
///   minutes into it), the device's figure is the better bound and elapsed is the moving time.
///
/// - **Times that do not time a movement** are no workout's: where the distance over the span
///   would be faster than any workout moves (``TrackFigures/maximumSpeed``), such as OpenCPN's
///   planned route of 62.6 km whose points carry the 36 seconds they were drawn in, elapsed is
///   unknown (and so is every pace and speed), as for a file without times.
///
/// So elapsed ≥ moving holds by construction, for every file.
public struct WorkoutTimes: Sendable, Hashable {
    /// Seconds from start to end, pauses included; `nil` without a start and end or a timer time.
    public var elapsed: Double?
    /// Seconds in motion, from the device; `nil` where the file has no timer time.
    public var moving: Double?

    /// The times of a workout stored with these figures.
    /// - Parameters:
    ///   - duration: the stored duration (``WorkoutSummary/duration``): the device's timer time
    ///     when `deviceFigures` holds ``DeviceSummary/durationFigure``, else end minus start.
    ///   - deviceFigures: which figures came from the device (``DeviceSummary/figures``).
    ///   - distance: the stored distance in metres.
    public init(start: Date?, end: Date?, duration: Double?, deviceFigures: [String]?, distance: Double) {
        func seconds(_ value: Double?) -> Double? { value.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        var span: Double?
        if let start, let end, end >= start { span = seconds(end.timeIntervalSince(start)) }
        if let seconds = span, distance > seconds * TrackFigures.maximumSpeed { span = nil }
        moving = deviceFigures?.contains(DeviceSummary.durationFigure) == true ? seconds(duration) : nil
        switch (span, moving) {
        case (let span?, let moving?): elapsed = max(span, moving)
        case (let span?, nil): elapsed = span
        case (nil, let moving?): elapsed = moving
        case (nil, nil): elapsed = nil
        }
    }

    /// The moving time where the device recorded one, else the elapsed time: what a pace, a speed
    /// and a summary's moving total are worked out from.
    public var movingOrElapsed: Double? { moving ?? elapsed }
}

extension WorkoutRecord {
    /// Its elapsed and moving time (``WorkoutTimes``).
    public var times: WorkoutTimes {
        WorkoutTimes(start: start, end: end, duration: duration, deviceFigures: deviceFigures, distance: distance)
    }
}
