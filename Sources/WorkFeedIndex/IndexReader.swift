public import Foundation
public import GRDB
public import WorkFeedModel

/// Read queries on the index.
public struct IndexReader {
    public let db: Database

    /// The number of workouts, of one owner or of all.
    public func workoutCount(owner: String? = nil) throws -> Int {
        guard let owner else { return try Int.fetchOne(db, sql: "SELECT count(*) FROM workout") ?? 0 }
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM workout WHERE owner = ?", arguments: [owner]) ?? 0
    }

    /// The ids of every workout of `owner`, in id order.
    public func workoutIDs(owner: String) throws -> [WorkoutID] {
        try String.fetchAll(db, sql: "SELECT id FROM workout WHERE owner = ? ORDER BY id", arguments: [owner]).compactMap(WorkoutID.init)
    }

    /// Jobs per kind, theme, scale and status.
    public typealias StatusCount = (kind: JobKind, theme: Theme, scale: Int, status: JobStatus, count: Int)

    /// Jobs per kind, theme, scale and status, of one owner's workouts or of all.
    public func statusCounts(owner: String? = nil) throws -> [StatusCount] {
        let sql =
            owner == nil
            ? "SELECT kind, theme, scale, status, count(*) AS n FROM job GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
            : """
            SELECT j.kind, j.theme, j.scale, j.status, count(*) AS n FROM job j JOIN workout w ON w.id = j.workout_id WHERE w.owner = ?
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            """
        return try Row.fetchAll(db, sql: sql, arguments: owner.map { [$0] } ?? []).compactMap(Self.statusCount)
    }

    /// A row of kind, theme, scale, status and `n`; `nil` for a value this version does not know.
    private static func statusCount(_ row: Row) -> StatusCount? {
        guard let kind = JobKind(rawValue: row["kind"]), let theme = Theme(rawValue: row["theme"]),
            let status = JobStatus(rawValue: row["status"])
        else { return nil }
        return (kind, theme, row["scale"], status, row["n"])
    }

    /// Jobs per kind, theme and status among the pictures an ENQUEUE of `selection` covers (its
    /// kinds, themes and scales, `scales` when it names none, of the workouts it selects): what
    /// `workctl enqueue --wait` follows.
    public func statusCounts(of selection: EnqueueRequest, scales: [Int]) throws -> [StatusCount] {
        let workouts = WorkoutSelection(selection)
        var arguments: StatementArguments = [
            "kinds": WorkoutSelection.jsonArray(selection.kinds.map(\.rawValue)),
            "themes": WorkoutSelection.jsonArray(selection.themes.map(\.rawValue)),
            "scales": "[" + (selection.scales ?? scales).map(String.init).joined(separator: ",") + "]",
        ]
        arguments += workouts.arguments
        let join = workouts.conditions.isEmpty ? "" : " JOIN workout w ON w.id = j.workout_id"
        return try Row.fetchAll(
            db,
            sql: """
                SELECT j.kind, j.theme, j.scale, j.status, count(*) AS n FROM job j\(join)
                WHERE j.kind IN (SELECT value FROM json_each(:kinds)) AND j.theme IN (SELECT value FROM json_each(:themes))
                    AND j.scale IN (SELECT value FROM json_each(:scales)) AND \(workouts.sql)
                GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                """, arguments: arguments
        ).compactMap(Self.statusCount)
    }

    /// Generated pictures by kind, theme and map coverage (`unknown` for pictures drawn before maps).
    public func mapCoverageCounts() throws -> [(kind: JobKind, theme: Theme, map: String, count: Int)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT kind, theme, coalesce(map, 'unknown') AS map, count(*) AS n FROM job WHERE status = 'generated'
                GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                """
        ).compactMap { row in
            guard let kind = JobKind(rawValue: row["kind"]), let theme = Theme(rawValue: row["theme"]) else { return nil }
            return (kind, theme, row["map"], row["n"])
        }
    }

    /// Pending jobs past any back-off, leased ones included (leases are not in the index: see
    /// ``IndexTransaction/readyCount(now:)`` for the jobs ready to lease).
    public func pendingReadyCount(now: Date = Date()) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM job INDEXED BY job_queue WHERE status = 'pending' AND (not_before IS NULL OR not_before <= ?)",
            arguments: [now.timeIntervalSince1970]) ?? 0
    }

    /// A workout; with `owner`, only when it is that owner's (another owner's is `nil`, as if it
    /// were not in the index).
    public func workout(_ id: WorkoutID, owner: String? = nil) throws -> WorkoutRecord? {
        guard
            let record = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.workoutColumns) FROM workout WHERE id = ?"), arguments: [id.description])
                .map(Self.workoutRecord)
        else { return nil }
        return owner == nil || record.owner == owner ? record : nil
    }

    public func pictures(of id: WorkoutID) throws -> [PictureRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(Self.pictureColumns) FROM job WHERE workout_id = ? ORDER BY kind, theme, scale", arguments: [id.description]
        ).map(Self.pictureRecord)
    }

    /// The pictures of several workouts (a feed page) in one query, by workout.
    public func pictures(of ids: [WorkoutID]) throws -> [WorkoutID: [PictureRecord]] {
        guard !ids.isEmpty else { return [:] }
        let list = "[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let records = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(Self.pictureColumns) FROM json_each(?) AS q CROSS JOIN job ON job.workout_id = q.value
                    ORDER BY workout_id, kind, theme, scale
                    """),
            arguments: [list]
        ).map(Self.pictureRecord)
        return Dictionary(grouping: records, by: \.picture.workoutID)
    }

    /// Every generated picture with its cache key, in job order, while `body` returns `true`.
    public func generatedPictures(_ body: (PictureID, String) throws -> Bool) throws {
        let rows = try Row.fetchCursor(
            db, sql: "SELECT workout_id, kind, theme, scale, cache_key FROM job WHERE status = 'generated' AND cache_key IS NOT NULL ORDER BY id")
        while let row = try rows.next() {
            guard let id = WorkoutID(row[0] as String), let kind = JobKind(rawValue: row[1]), let theme = Theme(rawValue: row[2]) else { continue }
            guard try body(PictureID(workoutID: id, kind: kind, theme: theme, scale: row[3]), row[4]) else { return }
        }
    }

    /// The stored series of a workout, as stored.
    public func series(of id: WorkoutID) throws -> (route: [UInt8], heartRate: [UInt8])? {
        try Row.fetchOne(db, sql: "SELECT route, heart_rate FROM series WHERE workout_id = ?", arguments: [id.description]).map { row in
            (Array(row["route"] as Data), Array(row["heart_rate"] as Data))
        }
    }

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
            guard let position = FeedCursor(cursor) else { throw IndexError("not a feed cursor: \(cursor.prefix(80))") }
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
            SELECT id, anchor, 'workout' AS change FROM workout WHERE anchor > :since
            UNION ALL
            SELECT workout_id, max(anchor), 'pictures' FROM job WHERE anchor > :since GROUP BY workout_id
            UNION ALL
            SELECT id, anchor, 'deleted' FROM deleted_workout WHERE anchor > :since
            ORDER BY 2, 1
            LIMIT :limit
            """
            : """
            SELECT id, anchor, 'workout' AS change FROM workout WHERE owner = :owner AND anchor > :since
            UNION ALL
            SELECT j.workout_id, max(j.anchor), 'pictures' FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE w.owner = :owner AND j.anchor > :since GROUP BY j.workout_id
            UNION ALL
            SELECT id, anchor, 'deleted' FROM deleted_workout WHERE owner = :owner AND anchor > :since
            ORDER BY 2, 1
            LIMIT :limit
            """
        var arguments: [String: (any DatabaseValueConvertible)?] = ["since": anchor, "limit": limit + 1]
        if let owner { arguments["owner"] = owner }
        let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        var changes = rows.compactMap { row -> WorkoutChange? in
            guard let id = WorkoutID(row[0] as String), let kind = WorkoutChange.Kind(rawValue: row[2]) else { return nil }
            return WorkoutChange(anchor: row[1], id: id, change: kind)
        }
        let more = changes.count > limit
        if more { changes.removeLast() }
        return (changes, more)
    }

    /// The workouts whose id starts with `prefix` (lower-case hex, with or without the hyphens),
    /// at most `limit`, in id order.
    public func workouts(withPrefix prefix: String, limit: Int) throws -> [WorkoutID] {
        let hex = prefix.lowercased().filter { $0 != "-" }
        // The stored form has hyphens after the 8th, 12th, 16th and 20th digit.
        var stored = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { stored.append("-") }
            stored.append(character)
        }
        return try String.fetchAll(
            db, sql: "SELECT id FROM workout WHERE id >= ? AND id < ? ORDER BY id LIMIT ?", arguments: [stored, stored + "~", limit]
        ).compactMap(WorkoutID.init)
    }

    /// The file a workout's stored copy came from, and its place among the file's workouts;
    /// `nil` for a workout imported before files were remembered (or not in the index).
    public func file(of id: WorkoutID) throws -> (file: WorkoutFile, positionInFile: Int, originalKept: Bool)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.workoutColumns) FROM workout WHERE id = ?", arguments: [id.description]),
            let file = Self.workoutRecord(row).file
        else { return nil }
        return (file, row[29], row[28])
    }

    /// The files (SHA-256) of these workouts.
    public func fileHashes(of ids: [WorkoutID]) throws -> Set<String> {
        var hashes = Set<String>()
        for id in ids {
            if let hash = try String.fetchOne(db, sql: "SELECT file_sha256 FROM workout WHERE id = ?", arguments: [id.description]) {
                hashes.insert(hash)
            }
        }
        return hashes
    }

    /// Of these files (SHA-256), those no workout refers to any more.
    public func unreferencedFiles(_ hashes: Set<String>) throws -> [String] {
        try hashes.sorted().filter { hash in
            try Int.fetchOne(db, sql: "SELECT 1 FROM workout WHERE file_sha256 = ? LIMIT 1", arguments: [hash]) == nil
        }
    }

    /// When the longest-waiting pending job was last changed (queued, or made pending again).
    public func oldestPending() throws -> Date? {
        try Double.fetchOne(db, sql: "SELECT min(updated_at) FROM job WHERE status = 'pending'").map(Date.init(timeIntervalSince1970:))
    }

    /// Failed pictures grouped by their failure's code, most frequent first, each with the
    /// reason of its most recent failure as an example.
    public func failureGroups(limit: Int) throws -> [(code: String, count: Int, example: String)] {
        // SQLite takes a bare column (reason) from the row that gave max(updated_at).
        try Row.fetchAll(
            db,
            sql: """
                SELECT coalesce(reason_code, 'transient') AS code, count(*) AS n, coalesce(reason, '') AS reason, max(updated_at)
                FROM job WHERE status = 'failed-no-retry' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
                """,
            arguments: [limit]
        ).map { ($0["code"], $0["n"], $0["reason"]) }
    }

    /// Failed pictures, most recent first.
    public func failedPictures(limit: Int) throws -> [PictureRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(Self.pictureColumns) FROM job WHERE status = 'failed-no-retry' ORDER BY updated_at DESC, id LIMIT ?",
            arguments: [limit]
        ).map(Self.pictureRecord)
    }

    public func failedCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE status = 'failed-no-retry'") ?? 0
    }

    /// The last anchor handed out.
    public func currentAnchor() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'anchor'") ?? 0
    }

    /// The columns ``workoutRecord(_:)`` reads, in its order: select them by name, decode them by
    /// position (a lookup by name lower-cases and hashes the name for every value, which was most of
    /// the time of a feed page).
    static let workoutColumns = """
        id, owner, source, source_id, activity, name, tz_offset, route_version, route_hash, hr_hash, anchor, start_at, end_at, \
        distance, duration, elevation_gain, hr_avg, hr_max, point_count, calories, hr_samples, device_source, device_figures, \
        file_name, file_sha256, file_size, file_format, reader_version, original_kept, position_in_file
        """

    static func workoutRecord(_ row: Row) -> WorkoutRecord {
        var record = WorkoutRecord(
            id: WorkoutID(row[0] as String) ?? WorkoutID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
            owner: row[1],
            source: WorkoutSource(rawValue: row[2]) ?? .gpx,
            sourceID: row[3],
            activity: ActivityType(rawValue: row[4]) ?? .other,
            name: row[5],
            summary: WorkoutSummary(route: Route(), heartRate: []),
            timeZoneOffset: row[6],
            routeVersion: row[7],
            routeHash: row[8],
            heartRateHash: row[9],
            anchor: row[10])
        record.start = (row[11] as Double?).map(Date.init(timeIntervalSince1970:))
        record.end = (row[12] as Double?).map(Date.init(timeIntervalSince1970:))
        record.distance = row[13]
        record.duration = row[14]
        record.elevationGain = row[15]
        record.heartRateAverage = row[16]
        record.heartRateMax = row[17]
        record.pointCount = row[18]
        record.calories = row[19]
        record.heartRateSamples = row[20]
        record.deviceSource = row[21]
        record.deviceFigures = (row[22] as String?).map { $0.split(separator: ",").map(String.init) }
        if let name = row[23] as String?, let sha256 = row[24] as String? {
            record.file = WorkoutFile(name: name, size: row[25] ?? 0, sha256: sha256, format: row[26] ?? "", readerVersion: row[27] ?? 1)
            record.originalKept = row[28]
        }
        return record
    }

    /// The columns ``pictureRecord(_:)`` reads, in its order.
    static let pictureColumns = "workout_id, kind, theme, scale, status, reason, cache_key, attempts, updated_at, map, reason_code"

    static func pictureRecord(_ row: Row) -> PictureRecord {
        PictureRecord(
            picture: PictureID(
                workoutID: WorkoutID(row[0] as String) ?? WorkoutID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
                kind: JobKind(rawValue: row[1]) ?? .route, theme: Theme(rawValue: row[2]) ?? .light, scale: row[3]),
            status: JobStatus(rawValue: row[4]) ?? .pending,
            reason: row[5],
            cacheKey: row[6],
            attempts: row[7],
            updatedAt: Date(timeIntervalSince1970: row[8]),
            map: (row[9] as String?).flatMap(MapCoverage.init(rawValue:)),
            reasonCode: row[10])
    }
}
