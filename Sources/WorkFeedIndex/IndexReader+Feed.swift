import Foundation
import GRDB
public import WorkFeedModel

// MARK: The feed and the change log (FEED, CHANGES)

extension IndexReader {
    /// Workouts newest first (undated ones last), `limit` at a time, of one owner or of all. The
    /// cursor is opaque to clients: the last item's start time and id (a keyset, not an offset),
    /// so that pages stay stable while workouts are added or removed.
    public func feed(limit: Int, cursor: String?, owner: String? = nil) throws -> (workouts: [WorkoutRecord], next: String?) {
        // The indexes workout_feed (owner first) and workout_feed_all cover this order.
        var sql = "SELECT \(Self.workoutColumns) FROM workout INDEXED BY \(owner == nil ? "workout_feed_all" : "workout_feed")"
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let owner {
            conditions.append("owner = ?")
            _ = arguments.append(contentsOf: [owner])
        }
        if let cursor {
            guard let position = FeedCursor(cursor) else { throw IndexError(.badCursor, "not a feed cursor: \(cursor.prefix(80))") }
            // Written out rather than as a row value `(start, id) < (?, ?)`, which SQLite does not turn
            // into a range of the index: every page after the first walked the owner's feed from
            // its top (pages all over a feed of 100,000 workouts came at 147 a second, deploy/bench-gateway.sh).
            conditions.append("coalesce(start_at, -1e18) <= ? AND (coalesce(start_at, -1e18) < ? OR id < ?)")
            _ = arguments.append(contentsOf: [position.start, position.start, position.id.description])
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY coalesce(start_at, -1e18) DESC, id DESC LIMIT ?"
        _ = arguments.append(contentsOf: [limit + 1])
        // Cached: a page is asked for on every scroll, and compiling the statement cost as much as running it.
        var workouts = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(Self.workoutRecord)
        var next: String?
        if workouts.count > limit {
            workouts.removeLast()
            if let last = workouts.last { next = Self.feedCursor(after: last) }
        }
        return (workouts, next)
    }

    /// The cursor of the page that follows `workout` in the feed (opaque to clients).
    public static func feedCursor(after workout: WorkoutRecord) -> String {
        FeedCursor(start: workout.start?.timeIntervalSince1970 ?? FeedCursor.undated, id: workout.id).description
    }

    /// What changed after `anchor`, oldest first: the way a client syncs incrementally. A workout
    /// appears once per kind of change, at its latest anchor.
    /// - Parameter owner: only that owner's workouts (and deletions); `nil` for every owner's.
    /// - Returns: up to `limit` changes, and whether more follow.
    public func changes(since anchor: Int64, limit: Int, owner: String? = nil) throws -> (changes: [WorkoutChange], more: Bool) {
        let sql =
            owner == nil
            ? """
            SELECT id, anchor, 'workout' AS change, id AS row FROM workout WHERE anchor > :since
            UNION ALL
            SELECT workout_id, max(anchor), 'pictures', min(id) FROM job WHERE anchor > :since GROUP BY workout_id
            UNION ALL
            SELECT id, anchor, 'deleted', id FROM deleted_workout WHERE anchor > :since
            ORDER BY 2, 1
            LIMIT :limit
            """
            : """
            SELECT id, anchor, 'workout' AS change, id AS row FROM workout WHERE owner = :owner AND anchor > :since
            UNION ALL
            SELECT j.workout_id, max(j.anchor), 'pictures', min(j.id) FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE w.owner = :owner AND j.anchor > :since GROUP BY j.workout_id
            UNION ALL
            SELECT id, anchor, 'deleted', id FROM deleted_workout WHERE owner = :owner AND anchor > :since
            ORDER BY 2, 1
            LIMIT :limit
            """
        var arguments: [String: (any DatabaseValueConvertible)?] = ["since": anchor, "limit": limit + 1]
        if let owner { arguments["owner"] = owner }
        let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        var changes = try rows.map { row throws(IndexError) in
            // Each kind of change from its own table, whose row the fourth column names.
            let change: WorkoutChange.Kind = try RowDecoder(row, table: "job", idColumn: 3).known(2, "change")
            let table =
                switch change {
                case .workout: "workout"
                case .pictures: "job"
                case .deleted: "deleted_workout"
                }
            let decoder = RowDecoder(row, table: table, idColumn: 3)
            return WorkoutChange(
                anchor: try decoder.value(1, "anchor"), id: try decoder.workoutID(0, table == "job" ? "workout_id" : "id"), change: change)
        }
        let more = changes.count > limit
        if more { changes.removeLast() }
        return (changes, more)
    }

    /// The last anchor handed out.
    public func currentAnchor() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'anchor'") ?? 0
    }
}
