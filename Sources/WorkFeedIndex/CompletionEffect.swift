public import Foundation
public import WorkFeedModel

/// What a worker's report did to a job.
public enum CompletionEffect: Sendable, Hashable {
    /// The report was for a lease that is no longer current (re-leased, or the inputs changed):
    /// ignored.
    case staleLease
    /// The report was on inputs that changed after the job was leased (its owner's privacy zones,
    /// a setting in its cache key): not stored; the job is ready to be drawn again at once, with no
    /// attempt counted, and whatever the worker wrote goes (``LeftoverPicture``).
    case outdated(PictureID)
    /// The job now has this status; `retryAt` is set when a transient failure will be retried,
    /// `code` when it failed (or will be retried).
    case updated(PictureID, JobStatus, reason: String?, retryAt: Date?, code: FailureCode? = nil)
}
