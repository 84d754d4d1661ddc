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
    /// For a failure, its code; `nil`: worked out from the detail (``FailureCode/guess(fromReason:)``).
    public var code: FailureCode?

    public init(lease: UInt64, outcome: Outcome, detail: String, map: MapCoverage = .none, code: FailureCode? = nil) {
        self.code = code
        self.lease = lease
        self.outcome = outcome
        self.detail = detail
        self.map = map
    }
}
