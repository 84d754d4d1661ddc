import Logging
import WorkFeedModel
import WorkFeedStore

/// One picture store, one index (issue 37): the store's owner marker
/// (``CacheLayout/ownerMarkerName``) names the index whose pictures it holds, so that a
/// coordinator never sweeps away pictures another index stored. A coordinator with an empty index
/// pointed at another deployment's prefix removed at its start every picture it did not know (a
/// third of a deployment's pictures then answered 404 while `workctl enqueue --stale` called them
/// current). Checked at every start, before the start sweeps (docs/operations.md, "One store, one
/// index").
enum StoreOwnership {
    /// What the start found.
    enum Claim: Equatable {
        /// The marker names this index.
        case owned
        /// There was no marker and no picture: the store is this index's now.
        case claimed
        /// There was no marker, but pictures and an index with workouts: a store from before
        /// markers, this index's since then.
        case adopted
        /// There was no marker and no picture, and the marker could not be written (a directory
        /// whose parent is not there yet): nothing to protect; a later start marks it.
        case notYet
    }

    static let markerWord = "workfeed-index"

    /// The marker's text for the index `identity`: one line.
    static func marker(for identity: String) -> String { "\(markerWord) \(identity)\n" }

    /// The index a marker names, or `nil` when the text is no marker.
    static func identity(inMarker text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0] == markerWord, IndexIdentityText.isValid(words[1]) else { return nil }
        return String(words[1])
    }

    /// Checks that `store` is the index's, and marks it so when it holds no picture yet or the
    /// index has workouts of its own (a deployment from before markers).
    /// - Parameters:
    ///   - identity: ``WorkFeedIndex/IndexWriting/indexIdentity()``.
    ///   - indexHasWorkouts: whether the index holds any workout.
    /// - Throws: ``CoordinatorError`` (`foreignStore`) naming the store, the marker and what to
    ///   do, when the store is another index's; (`store`) when it cannot be read or marked.
    static func claim(
        _ store: any PictureStore, identity: String, indexHasWorkouts: Bool, logger: Logger
    ) throws(CoordinatorError) -> Claim {
        func reading<T>(_ body: () throws(PictureStoreError) -> T) throws(CoordinatorError) -> T {
            do { return try body() } catch {
                throw CoordinatorError(.store, "cannot start: the picture store \(store)'s owner marker cannot be read or written", cause: error)
            }
        }
        if let text = try reading({ () throws(PictureStoreError) in try store.ownerMarker() }) {
            guard let owner = Self.identity(inMarker: text) else {
                throw CoordinatorError(
                    .foreignStore,
                    "cannot start: the picture store \(store) has an owner marker (\(CacheLayout.ownerMarkerName)) that names no index: "
                        + "'\(String(text.prefix(80)).escapedForDisplay)'; it is not a WorkFeed store, or the marker was damaged "
                        + "(docs/operations.md, \"One store, one index\")")
            }
            guard owner == identity else {
                throw CoordinatorError(
                    .foreignStore,
                    "cannot start: the picture store \(store) holds the pictures of index \(owner) (its \(CacheLayout.ownerMarkerName)), "
                        + "not of this coordinator's index \(identity): give each index a store of its own (another directory or "
                        + "prefix), or point this coordinator at that store's index (docs/operations.md, \"One store, one index\")")
            }
            return .owned
        }
        let holdsPictures = try reading { () throws(PictureStoreError) in try store.holdsPictures() }
        if holdsPictures && !indexHasWorkouts {
            throw CoordinatorError(
                .foreignStore,
                "cannot start: the picture store \(store) holds pictures but no owner marker (\(CacheLayout.ownerMarkerName)), and this "
                    + "coordinator's index \(identity) has no workout: the pictures are another deployment's, and this start's sweep "
                    + "would remove them. Use an empty directory or prefix, or restore the index those pictures belong to "
                    + "(docs/operations.md, \"One store, one index\")")
        }
        let claim: Claim = holdsPictures ? .adopted : .claimed
        do {
            // A directory the workers have not made yet is made as they make it (its parent there).
            if !holdsPictures { _ = try store.createIfMissing() }
            try store.writeOwnerMarker(marker(for: identity))
        } catch {
            guard holdsPictures else {
                // Nothing there to sweep away: the start goes on, and a later one marks it.
                logger.warning(
                    "the picture store cannot be marked as this index's yet; a later start marks it",
                    metadata: ["store": "\(store)", "error": "\(error)"])
                return .notYet
            }
            throw CoordinatorError(.store, "cannot start: the picture store \(store)'s owner marker cannot be written", cause: error)
        }
        logger.notice("the picture store is this index's now", metadata: ["store": "\(store)", "index": "\(identity)", "how": "\(claim)"])
        return claim
    }
}

/// The text of an index's identity: a lower-case UUID.
enum IndexIdentityText {
    static func isValid(_ text: Substring) -> Bool {
        text.count == 36 && text.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase }
    }
}
