import Foundation
import WorkFeedModel

/// Every heart-rate sample of an Apple Health export, kept compactly until the workouts are known.
///
/// `HKQuantityTypeIdentifierHeartRate` records come anywhere in `export.xml` (usually long
/// before the workouts), so they are collected first and given to workouts at the end. Each
/// sample is packed into one `UInt64`: the time in milliseconds since 1970 in the high 42 bits
/// (up to the year 2109) and the rate in tenths of a beat per minute in the low 22 bits. That is
/// 8 bytes a sample, and sorting the packed values sorts by time; millisecond and 0.1 bpm
/// resolution is what the index stores anyway (`SeriesCodec`).
struct HeartRateCollector: Sendable {
    private(set) var packed: [UInt64] = []
    private var isSorted = true
    private static let bpmBits: UInt64 = 22
    private static let bpmMask: UInt64 = (1 << bpmBits) - 1

    var count: Int { packed.count }

    /// Adds a sample. - Returns: false (and keeps nothing) for a time before 1970 or after 2109,
    /// or a rate that is not a positive number below 419,430 bpm.
    @discardableResult
    mutating func add(seconds: Double, bpm: Double) -> Bool {
        let milliseconds = (seconds * 1000).rounded()
        let tenths = (bpm * 10).rounded()
        guard milliseconds >= 0, milliseconds < 4_398_046_511_104, tenths >= 1, tenths <= Double(Self.bpmMask) else { return false }
        let value = UInt64(milliseconds) << Self.bpmBits | UInt64(tenths)
        if let last = packed.last, value < last { isSorted = false }
        packed.append(value)
        return true
    }

    /// Sorts the samples by time; needed before ``samples(from:to:)``.
    mutating func sort() {
        guard !isSorted else { return }
        packed.sort()
        isSorted = true
    }

    /// The samples from `start` to `end`, both included, in time order. A sample repeated exactly
    /// (same millisecond, same rate) counts once.
    func samples(from start: Date, to end: Date) -> [HeartRateSample] {
        precondition(isSorted, "sort() first")
        guard start <= end else { return [] }
        let lower = Self.key(start, rounding: .up)
        let upper = Self.key(end, rounding: .down) | Self.bpmMask
        var index = firstIndex(notBelow: lower)
        var samples: [HeartRateSample] = []
        var previous: UInt64?
        while index < packed.count, packed[index] <= upper {
            let value = packed[index]
            if value != previous {
                samples.append(
                    HeartRateSample(
                        time: Date(timeIntervalSince1970: Double(value >> Self.bpmBits) / 1000),
                        bpm: Double(value & Self.bpmMask) / 10))
                previous = value
            }
            index += 1
        }
        return samples
    }

    private static func key(_ date: Date, rounding: FloatingPointRoundingRule) -> UInt64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(rounding)
        guard milliseconds > 0 else { return 0 }
        return UInt64(min(milliseconds, 4_398_046_511_103)) << bpmBits
    }

    private func firstIndex(notBelow key: UInt64) -> Int {
        var lower = 0
        var upper = packed.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if packed[middle] < key { lower = middle + 1 } else { upper = middle }
        }
        return lower
    }
}
