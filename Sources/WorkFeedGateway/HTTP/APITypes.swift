import Foundation
import WorkFeedModel
import WorkFeedWire

// The gateway's documents (docs/openapi.yaml). A workout is always a ``FeedItem`` (WorkFeedModel),
// the shape the coordinator, workctl and the feed page share; these only wrap it.

/// `/v1/changes` (docs/openapi.yaml, `ChangesPage`); each change carries its workout with
/// `include=workout`.
struct ChangesPage: Encodable, Sendable {
    var changes: [WorkoutChange]
    var more: Bool
    var anchor: Int64
}

/// What an upload did (docs/openapi.yaml, `UploadResult`): per workout in the file, what became
/// of it and the workout as the feed shows it (for a duplicate, the stored one).
struct UploadResult: Encodable, Sendable {
    struct Uploaded: Encodable, Sendable {
        var result: ImportResult
        /// Why it was not stored as it came (`duplicate`, `kept-richer`, …).
        var reason: String?
        var workout: FeedItem
    }

    var workouts: [Uploaded]
}

/// The answer to a picture request (docs/openapi.yaml, `PictureState`).
struct PictureState: Encodable, Sendable {
    /// The workout's id, named as everywhere else.
    var id: WorkoutID
    var picture: FeedPicture
}
