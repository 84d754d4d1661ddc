public import WorkFeedModel

/// A worker's report as the index records it (the wire's `JobReport`, without depending on the wire).
public struct JobReportRecord: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable { case generated, failedNoRetry, failedRetry }
    public var lease: UInt64
    public var outcome: Outcome
    /// The cache key for `generated`, the reason otherwise.
    public var detail: String
    /// For `generated`: how much of the picture the basemap covered.
    public var map: MapCoverage
    /// For a failure, its code, as the worker sent it (``failureCode`` when it sent none).
    public var code: FailureCode?

    public init(lease: UInt64, outcome: Outcome, detail: String, map: MapCoverage = .none, code: FailureCode? = nil) {
        self.code = code
        self.lease = lease
        self.outcome = outcome
        self.detail = detail
        self.map = map
    }

    /// The failure's code: the one sent, or for a report without one the code of its outcome
    /// (`render-failed` for a failure that is final, `transient` for one worth another try), never
    /// a code guessed from the detail's words. Every worker of renderer version 3 sends codes (they
    /// came with version 2's workers); docs/PROTOCOL.md, STATUS.
    public var failureCode: FailureCode {
        if let code { return code }
        switch outcome {
        case .failedNoRetry: return .renderFailed
        case .failedRetry, .generated: return .transient
        }
    }
}
