import Foundation
import WorkFeedModel

/// Heart-rate samples restricted to a route's time span, answering "what was the heart rate
/// during this piece of the route".
///
/// Samples arrive sorted from the index, and then are used in place (no copy); an unsorted
/// series is sorted once into a copy. Samples with a non-finite or implausible rate are skipped.
struct HeartRateSeries {
    private let samples: [HeartRateSample]
    /// Seconds since the reference date, inclusive.
    private let span: ClosedRange<Double>
    /// Valid samples inside the span.
    private(set) var count = 0

    static let plausible: ClosedRange<Double> = 20...300

    init(samples: [HeartRateSample], span: ClosedRange<Double>) {
        var sorted = true
        for index in samples.indices.dropFirst() where samples[index - 1].time > samples[index].time {
            sorted = false
            break
        }
        self.samples = sorted ? samples : samples.sorted { $0.time < $1.time }
        self.span = span
        var index = lowerBound(span.lowerBound)
        while index < self.samples.count, time(index) <= span.upperBound {
            if isValid(index) { count += 1 }
            index += 1
        }
    }

    var isEmpty: Bool { count == 0 }

    /// The mean rate of the samples within `start...end`; when none falls inside, the rate
    /// interpolated linearly at the middle of the interval between the nearest samples before and
    /// after it (or the nearest one when only one side has any).
    func average(from start: Double, to end: Double) -> Double? {
        let lower = max(start, span.lowerBound)
        let upper = min(end, span.upperBound)
        var sum = 0.0
        var found = 0
        var index = lowerBound(lower)
        while index < samples.count, time(index) <= upper {
            if isValid(index) {
                sum += samples[index].bpm
                found += 1
            }
            index += 1
        }
        if found > 0 { return sum / Double(found) }

        let middle = min(max((start + end) / 2, span.lowerBound), span.upperBound)
        let split = lowerBound(middle)
        var before = split - 1
        while before >= 0, time(before) >= span.lowerBound, !isValid(before) { before -= 1 }
        var after = split
        while after < samples.count, time(after) <= span.upperBound, !isValid(after) { after += 1 }
        let hasBefore = before >= 0 && time(before) >= span.lowerBound
        let hasAfter = after < samples.count && time(after) <= span.upperBound
        switch (hasBefore, hasAfter) {
        case (true, true):
            let t0 = time(before)
            let t1 = time(after)
            guard t1 > t0 else { return samples[before].bpm }
            let f = (middle - t0) / (t1 - t0)
            return samples[before].bpm + (samples[after].bpm - samples[before].bpm) * f
        case (true, false): return samples[before].bpm
        case (false, true): return samples[after].bpm
        case (false, false): return nil
        }
    }

    @inline(__always)
    private func time(_ index: Int) -> Double { samples[index].time.timeIntervalSinceReferenceDate }

    @inline(__always)
    private func isValid(_ index: Int) -> Bool {
        let bpm = samples[index].bpm
        return bpm.isFinite && Self.plausible.contains(bpm) && time(index).isFinite
    }

    /// The first index whose time is not before `value`.
    private func lowerBound(_ value: Double) -> Int {
        var low = 0
        var high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if time(middle) < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
