import Foundation

/// How transient failures are retried.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts (leases that came back without a picture) after which a job is `failed-no-retry`.
    public var maximumAttempts: Int
    /// The wait before the first retry; it doubles with each attempt, up to ``maximumBackoff``.
    public var initialBackoff: Double
    public var maximumBackoff: Double
    /// For failures of a worker's surroundings (``FailureCode/isEnvironmental``: a full or
    /// read-only cache): the first wait, doubling with each such failure up to
    /// ``environmentMaximumBackoff``. They count no attempt: the job waits as long as it takes.
    public var environmentInitialBackoff: Double
    public var environmentMaximumBackoff: Double

    public init(
        maximumAttempts: Int = 3, initialBackoff: Double = 1, maximumBackoff: Double = 60, environmentInitialBackoff: Double = 10,
        environmentMaximumBackoff: Double = 900
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.environmentInitialBackoff = environmentInitialBackoff
        self.environmentMaximumBackoff = environmentMaximumBackoff
    }

    /// What happens to a job whose lease came back without a picture after `previous` attempts
    /// before it: tried again after a back-off, or, at its last attempt, failed for good with a
    /// reason that says so. Every index backend decides by it.
    public func afterFailedAttempt(_ previous: Int, reason: String) -> RetryVerdict {
        let attempts = previous + 1
        guard attempts < maximumAttempts else { return .fail(attempts: attempts, reason: "gave up after \(attempts) attempts: \(reason)") }
        return .retry(attempts: attempts, afterSeconds: backoff(afterAttempt: attempts))
    }

    func backoff(afterAttempt attempt: Int) -> Double {
        min(maximumBackoff, initialBackoff * pow(2, Double(max(0, attempt - 1))))
    }

    /// The wait of a job put off for the `deferral`-th time by a failure of a worker's
    /// surroundings (no attempt counted).
    public func environmentBackoff(afterDeferral deferral: Int) -> Double {
        min(environmentMaximumBackoff, environmentInitialBackoff * pow(2, Double(min(60, max(0, deferral - 1)))))
    }
}

/// What ``RetryPolicy/afterFailedAttempt(_:reason:)`` decided.
public enum RetryVerdict: Sendable, Hashable {
    /// Pending again, `attempts` counted, ready after `afterSeconds`.
    case retry(attempts: Int, afterSeconds: Double)
    /// `failed-no-retry`, with the reason to store.
    case fail(attempts: Int, reason: String)
}
