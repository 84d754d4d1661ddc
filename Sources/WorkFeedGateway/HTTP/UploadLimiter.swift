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

    /// Uploads of one owner being received at once: one owner's uploads at its per-minute limit
    /// must not take every upload the gateway receives (issue 37, item 3).
    static let maximumAtOncePerOwner = 2

    /// Whether an upload may be received now.
    enum Admission: Equatable {
        case admitted
        /// The owner has this many being received already.
        case ownerAtOnce(Int)
        /// The gateway is receiving this many already.
        case gatewayFull(Int)
    }

    private let receiving = Mutex<(total: Int, owners: [String: Int])>((0, [:]))

    /// Counts an upload of `owner` as being received, unless the owner has
    /// ``maximumAtOncePerOwner`` already or the gateway `maximumInAll`; each admitted one is ended
    /// with ``leave(_:)``.
    func enter(_ owner: String, maximumInAll: Int) -> Admission {
        receiving.withLock { state in
            let own = state.owners[owner, default: 0]
            guard own < Self.maximumAtOncePerOwner else { return .ownerAtOnce(Self.maximumAtOncePerOwner) }
            guard state.total < maximumInAll else { return .gatewayFull(maximumInAll) }
            state.total += 1
            state.owners[owner] = own + 1
            return .admitted
        }
    }

    /// Ends an upload ``enter(_:maximumInAll:)`` admitted.
    func leave(_ owner: String) {
        receiving.withLock { state in
            state.total -= 1
            let own = state.owners[owner, default: 1] - 1
            state.owners[owner] = own > 0 ? own : nil
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
