public import Foundation
public import WorkFeedModel

/// What a worker's report did to a job.
public enum CompletionEffect: Sendable, Hashable {
    /// The report was for a lease that is no longer current (re-leased, or the inputs changed):
    /// ignored.
    case staleLease
    /// The job now has this status; `retryAt` is set when a transient failure will be retried,
    /// `code` when it failed (or will be retried).
    case updated(PictureID, JobStatus, reason: String?, retryAt: Date?, code: FailureCode? = nil)
}
