public import WorkFeedModel

/// A picture a worker wrote (or may have written) that no job stores as current: the report was
/// refused because the job's inputs changed after it was leased (an owner's privacy zones, a
/// route, a setting), or it came late, for a lease that had ended (the workout deleted, the job
/// taken back); or the start sweep found it with nothing referring to it. Its files go once the
/// transaction that found it has committed, unless a job or a lease refers to its key by then
/// (two jobs with the same inputs share one picture).
public struct LeftoverPicture: Sendable, Hashable {
    /// Whose by-picture name may hold it; `nil` when that is not known (a report for a lease no
    /// longer remembered): only its by-content name goes then.
    public var picture: PictureID?
    /// The cache key it was drawn under: its by-content name, and the key embedded in its bytes.
    public var key: String

    public init(picture: PictureID?, key: String) {
        self.picture = picture
        self.key = key
    }
}

/// What a committed transaction left for nobody: files to remove from the picture store.
public struct ReleasedPictures: Sendable, Hashable {
    /// By-content names (cache keys) that neither a job nor a lease refers to any more.
    public var keys: [String] = []
    /// By-picture names to remove if they still hold the picture drawn for the leftover's key (a
    /// picture drawn since, under another key, stays).
    public var pictures: [LeftoverPicture] = []
    /// For a by-picture name in ``pictures`` whose job stores another key: that key. A late
    /// picture may have been written over the current one; once removed, the name is given back to
    /// the current picture (its by-content file).
    public var current: [PictureID: String] = [:]

    public init(keys: [String] = [], pictures: [LeftoverPicture] = [], current: [PictureID: String] = [:]) {
        self.keys = keys
        self.pictures = pictures
        self.current = current
    }

    public var isEmpty: Bool { keys.isEmpty && pictures.isEmpty }
}

extension ReleasedPictures {
    /// The files a transaction leaves for nobody, as it stands at its end: the released keys and
    /// the leftovers' keys that neither a job nor a lease refers to now, and the leftovers'
    /// by-picture names whose own job neither stores nor is drawing their key (two workouts with
    /// the same inputs share a key, not a by-picture name). Checked at the end, because a key
    /// released early in a transaction may be stored again later in it (a job with the same
    /// inputs generated in the same batch), and a lease taken in it may be drawing it.
    /// - Parameters:
    ///   - isReferenced: whether a job stores the key, or a worker is drawing a picture under it now.
    ///   - isReferencedPicture: whether the picture's job stores the key, or a worker is drawing it under that key now.
    ///   - storedKey: the key a picture's job stores.
    public init(
        keys: [String], leftovers: [LeftoverPicture], isReferenced: (String) throws -> Bool,
        isReferencedPicture: (PictureID, String) throws -> Bool, storedKey: (PictureID) throws -> String?
    ) rethrows {
        self.init()
        var seen = Set<String>()
        for key in keys + leftovers.map(\.key) where seen.insert(key).inserted {
            if try !isReferenced(key) { self.keys.append(key) }
        }
        var pictures = Set<LeftoverPicture>()
        for leftover in leftovers where pictures.insert(leftover).inserted {
            guard let picture = leftover.picture, try !isReferencedPicture(picture, leftover.key) else { continue }
            self.pictures.append(leftover)
            if let stored = try storedKey(picture) { current[picture] = stored }
        }
    }
}
