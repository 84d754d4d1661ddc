import Foundation

/// What makes two imports the same workout: the one place where a workout's identity is decided.
///
/// - A source's own identifier where the file has one: a FIT `file_id` (serial and creation time),
///   a TCX activity `Id`, an Apple Health workout's identifier.
/// - Otherwise the SHA-256 of the file's bytes (`sha256:<hex>`), with the workout's place in the
///   file appended from the second one on (`sha256:<hex>#2`), so that two different files are
///   never one workout by accident and the same file imported twice is one workout. A hash of the
///   route is never used: every file without a route (waypoints only, an empty track) would
///   have the same one.
///
/// Every workout belongs to an ``Owner``, and the owner is part of its identity: the same file
/// imported by two owners is two workouts (two people who ran together and share a recording each
/// keep their own), and one owner's import never finds, updates or duplicates another's workout.
///
/// The workout's UUID is derived from the identity (owner included), so the same file of the same
/// owner gets the same id in any index. Workouts stored before owners existed keep the ids they
/// had (the index matches a re-import by owner, source and source id, not by the id).
public struct WorkoutIdentity: Sendable, Hashable {
    /// The owner id (``Owner``).
    public var owner: String
    public var source: WorkoutSource
    /// The source's identifier, or `sha256:<hex of the file's bytes>[#n]`.
    public var sourceID: String

    public init(owner: String, source: WorkoutSource, sourceID: String) {
        self.owner = owner
        self.source = source
        self.sourceID = sourceID
    }

    /// The identity of an imported workout of `owner`; `nil` when it has neither a source
    /// identifier nor a file to hash (such a workout cannot be told apart from others and is
    /// refused).
    public init?(of workout: ImportedWorkout, owner: String) {
        if let sourceID = workout.sourceID, !sourceID.isEmpty {
            self.init(owner: owner, source: workout.source, sourceID: sourceID)
        } else if let file = workout.file {
            self.init(owner: owner, source: workout.source, sourceID: Self.contentID(fileSHA256: file.sha256, position: workout.positionInFile))
        } else {
            return nil
        }
    }

    /// `sha256:<hex>` for the first workout of a file, `sha256:<hex>#<n>` for the n-th after it.
    public static func contentID(fileSHA256: String, position: Int) -> String {
        position <= 0 ? "sha256:" + fileSHA256 : "sha256:\(fileSHA256)#\(position.addingReportingOverflow(1).partialValue)"
    }

    /// The workout's id: the first 16 bytes of SHA-256("owner\u{0}source\u{0}sourceID"), marked
    /// as an RFC 9562 version 8 UUID. (Before owners it was SHA-256("source\u{0}sourceID"); the
    /// owner's bytes in front keep the two from ever meeting for a non-empty owner.)
    public var workoutID: WorkoutID {
        var hasher = SHA256()
        hasher.update(owner + "\u{0}" + source.rawValue + "\u{0}" + sourceID)
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return WorkoutID(uuid)
    }
}
