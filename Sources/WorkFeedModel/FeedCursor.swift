/// A position in the feed (newest first, undated workouts last): the start time and id of the last
/// workout of a page. The next page is what sorts after it, so pages stay stable while workouts
/// are added or removed (a keyset, not an offset).
///
/// Written `<start as seconds since 1970>|<id>`; clients treat it as opaque. A workout without a
/// start sorts as ``undated``.
public struct FeedCursor: Sendable, Hashable, CustomStringConvertible {
    /// Where undated workouts sort: after every dated one.
    public static let undated = -1e18

    public var start: Double
    public var id: WorkoutID

    public init(start: Double, id: WorkoutID) {
        self.start = start
        self.id = id
    }

    /// Parses a cursor; `nil` for anything that is not one (never a trap, whatever the text).
    public init?(_ text: String) {
        guard text.utf8.count <= 80 else { return nil }
        let parts = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Double(parts[0]), start.isFinite, let id = WorkoutID(String(parts[1])) else { return nil }
        self.start = start
        self.id = id
    }

    public var description: String { "\(start)|\(id)" }
}
