import Foundation
import Synchronization

/// Uploads per owner and minute (`uploads.per_owner_per_minute`): a token bucket for each owner
/// that holds a minute's uploads and fills up again at that rate. An upload past it is answered
/// `429` with `Retry-After` (the seconds until the owner's next upload is let in) before its body
/// is read (issue 23, finding 6: one owner's uploads must not fill everyone's queue).
///
/// Owners whose bucket has filled up again are forgotten when the table grows, so that the
/// gateway's memory does not grow with the number of owners who ever uploaded.
final class UploadLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// Uploads an owner may make in a minute, at once or spread out.
    let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Past this many owners in the table, full buckets are dropped.
    private static let tableSize = 10_000

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes one upload from `owner`'s bucket.
    /// - Returns: `nil` when the upload may go ahead; otherwise the whole seconds until it may.
    func take(_ owner: String, now: ContinuousClock.Instant = .now) -> Int? {
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[owner] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(capacity, bucket.tokens + max(0, seconds) * perSecond)
            bucket.updated = now
            defer {
                buckets[owner] = bucket
                if buckets.count > Self.tableSize { Self.forgetFull(&buckets, capacity: capacity, perSecond: perSecond, now: now) }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    private static func forgetFull(_ buckets: inout [String: Bucket], capacity: Double, perSecond: Double, now: ContinuousClock.Instant) {
        buckets = buckets.filter { _, bucket in
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return bucket.tokens + seconds * perSecond < capacity
        }
    }
}
