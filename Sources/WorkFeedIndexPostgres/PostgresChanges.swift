import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// CHANGES and anchors in an index several coordinators write (docs/postgres-index.md,
/// "Anchors"). A change's anchor is made of its transaction's id (`workfeed_anchor(k)`: base +
/// xid × 2²⁰ + k), and changes are read only below the horizon (`workfeed_anchor_horizon()`: base +
/// the snapshot's oldest running transaction id × 2²⁰): every transaction that can still commit
/// writes anchors at or above it, so a reader that goes on from the last anchor it was given
/// never skips a committed change, nor sees one twice. A long transaction anywhere in the
/// cluster holds the horizon back until it ends; it never makes a reader skip.
///
/// Each change takes an anchor of its own (a transaction's k-th change the k-th, however many
/// rows one statement writes): a reader goes on from `anchor > last`, so two changes that shared
/// one could be split across pages and the second one skipped.
public enum PostgresChanges {
    /// What changed after `anchor` and below the horizon, oldest first, each workout once per
    /// kind of change at its latest anchor (``IndexReading/changes(since:limit:owner:)``).
    public static func changes(
        since anchor: Int64, limit: Int, owner: String?, in session: PostgresSession
    ) throws(IndexError) -> (changes: [WorkoutChange], more: Bool) {
        let wanted = max(0, limit) + 1
        let rows =
            if let owner {
                try session.query(
                    """
                    SELECT id, anchor, change FROM (
                        SELECT id, anchor, 'workout' AS change FROM workout WHERE owner = \(owner) AND anchor > \(anchor)
                        UNION ALL
                        SELECT workout_id, max(anchor), 'pictures' FROM job WHERE owner = \(owner) AND anchor > \(anchor) GROUP BY workout_id
                        UNION ALL
                        SELECT id, anchor, 'deleted' FROM deleted_workout WHERE owner = \(owner) AND anchor > \(anchor)
                    ) c WHERE anchor < workfeed_anchor_horizon()
                    ORDER BY 2, 1 LIMIT \(wanted)
                    """, "reading the changes since \(anchor)")
            } else {
                try session.query(
                    """
                    SELECT id, anchor, change FROM (
                        SELECT id, anchor, 'workout' AS change FROM workout WHERE anchor > \(anchor)
                        UNION ALL
                        SELECT workout_id, max(anchor), 'pictures' FROM job WHERE anchor > \(anchor) GROUP BY workout_id
                        UNION ALL
                        SELECT id, anchor, 'deleted' FROM deleted_workout WHERE anchor > \(anchor)
                    ) c WHERE anchor < workfeed_anchor_horizon()
                    ORDER BY 2, 1 LIMIT \(wanted)
                    """, "reading the changes since \(anchor)")
            }
        var changes = try rows.decoded("the changes since \(anchor)") { row in
            let (id, anchor, kind) = try row.decode((UUID, Int64, String).self)
            // The query names only the three kinds.
            guard let change = WorkoutChange.Kind(rawValue: kind) else { throw IndexError(.failed, "an unknown change \(kind)") }
            return WorkoutChange(anchor: anchor, id: WorkoutID(id), change: change)
        }
        let more = changes.count > limit
        if more { changes.removeLast() }
        return (changes, more)
    }

    /// The anchor below which every change is committed or gone for good: what a reader that has
    /// read everything up to now goes on from (``IndexReading/currentAnchor()``).
    public static func currentAnchor(in session: PostgresSession) throws(IndexError) -> Int64 {
        let rows = try session.query("SELECT workfeed_anchor_horizon() - 1", "reading the anchors' horizon")
        guard let horizon = try rows.firstDecoded("the anchors' horizon", { try $0.decode(Int64.self) }) else {
            throw IndexError(.failed, "reading the anchors' horizon: no row")
        }
        return horizon
    }
}
