import WorkFeedModel

/// Reasons of failures stored before the index had codes (schema v5 and earlier), read back into
/// codes by migration v6 and by nothing else: since v6 every failure carries its code from where
/// it happened (``RenderFailure``'s, the picture store's, the coordinator's own), and codes travel
/// as codes (STATUS frame 7, `job.reason_code`). Matching phrases here is only for rows written
/// before: the phrases of that time are fixed, so this table is too.
enum ReasonsBeforeCodes {
    /// The code of a reason stored before codes existed: the renderer's phrases and the
    /// coordinator's own wording of that time.
    static func code(ofReason reason: String) -> FailureCode {
        let known: [(String, FailureCode)] = [
            ("no route", .noRoute), ("every point invalid", .everyPointInvalid), ("fewer than two usable points", .tooFewPoints),
            ("route is a single place", .singlePlace), ("no heart-rate samples", .noHeartRate), ("picture size out of range", .pictureSize),
            ("heatmap style invalid", .heatmapStyle), ("style draws nothing", .styleDrawsNothing),
        ]
        var text = Substring(reason)
        // "gave up after 3 attempts: worker w-1 went silent" is about its last reason.
        if text.hasPrefix("gave up after "), let colon = text.firstIndex(of: ":") { text = text[text.index(after: colon)...].drop { $0 == " " } }
        for (phrase, code) in known where text == phrase { return code }
        if text.hasPrefix("the job's picture spec cannot be read") { return .specUnreadable }
        if text.hasPrefix("the job's series cannot be read") { return .seriesUnreadable }
        if text.hasPrefix("cache write failed") {
            if text.contains("No space left") || text.contains("quota") { return .cacheFull }
            if text.contains("Read-only file system") { return .cacheReadOnly }
            if text.contains("Permission denied") || text.contains("Operation not permitted") { return .cacheDenied }
            return .cacheIO
        }
        if text.hasPrefix("this worker's basemap") { return .basemapDiffers }
        if text.hasPrefix("timed out on worker") { return .timedOut }
        if text.hasPrefix("worker "), text.hasSuffix(" went silent") { return .workerSilent }
        if text.hasPrefix("worker "), text.hasSuffix(" restarted") { return .workerRestarted }
        if text.hasPrefix("worker "), text.hasSuffix(" unreachable") { return .workerUnreachable }
        if text.hasPrefix("the worker reported cache key") { return .keyMismatch }
        return .transient
    }
}
