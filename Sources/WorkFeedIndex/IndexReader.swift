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

    /// Jobs per kind, theme and status, of one owner's workouts or of all.
    public func statusCounts(owner: String? = nil) throws -> [(kind: JobKind, theme: Theme, status: JobStatus, count: Int)] {
        let sql =
            owner == nil
            ? "SELECT kind, theme, status, count(*) AS n FROM job GROUP BY kind, theme, status ORDER BY kind, theme, status"
            : """
            SELECT j.kind, j.theme, j.status, count(*) AS n FROM job j JOIN workout w ON w.id = j.workout_id WHERE w.owner = ?
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """
        return try Row.fetchAll(db, sql: sql, arguments: owner.map { [$0] } ?? [])
            .compactMap { row in
                guard let kind = JobKind(rawValue: row["kind"]), let theme = Theme(rawValue: row["theme"]),
                    let status = JobStatus(rawValue: row["status"])
                else { return nil }
                return (kind, theme, status, row["n"])
            }
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
        guard let record = try Row.fetchOne(db, sql: "SELECT * FROM workout WHERE id = ?", arguments: [id.description]).map(Self.workoutRecord)
        else { return nil }
        return owner == nil || record.owner == owner ? record : nil
    }

    public func pictures(of id: WorkoutID) throws -> [PictureRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM job WHERE workout_id = ? ORDER BY kind, theme, scale", arguments: [id.description])
            .map(Self.pictureRecord)
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
        var sql = owner == nil ? "SELECT * FROM workout INDEXED BY workout_feed_all" : "SELECT * FROM workout INDEXED BY workout_feed"
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let owner {
            conditions.append("owner = ?")
            _ = arguments.append(contentsOf: [owner])
        }
        if let cursor {
            guard let position = FeedCursor(cursor) else { throw IndexError("not a feed cursor: \(cursor.prefix(80))") }
            conditions.append("(coalesce(start_at, -1e18), id) < (?, ?)")
            _ = arguments.append(contentsOf: [position.start, position.id.description])
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY coalesce(start_at, -1e18) DESC, id DESC LIMIT ?"
        _ = arguments.append(contentsOf: [limit + 1])
        var workouts = try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.workoutRecord)
        var next: String?
        if workouts.count > limit {
            workouts.removeLast()
            if let last = workouts.last {
                next = FeedCursor(start: last.start?.timeIntervalSince1970 ?? -1e18, id: last.id).description
            }
        }
        return (workouts, next)
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
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM workout WHERE id = ?", arguments: [id.description]),
            let file = Self.workoutRecord(row).file
        else { return nil }
        return (file, row["position_in_file"], row["original_kept"])
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

    /// Failed pictures grouped by reason, most frequent first.
    public func failureReasons(limit: Int) throws -> [(reason: String, count: Int)] {
        try Row.fetchAll(
            db,
            sql: "SELECT coalesce(reason, '') AS reason, count(*) AS n FROM job WHERE status = 'failed-no-retry' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?",
            arguments: [limit]
        ).map { ($0["reason"], $0["n"]) }
    }

    /// Failed pictures, most recent first.
    public func failedPictures(limit: Int) throws -> [PictureRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM job WHERE status = 'failed-no-retry' ORDER BY updated_at DESC, id LIMIT ?", arguments: [limit])
            .map(Self.pictureRecord)
    }

    public func failedCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM job WHERE status = 'failed-no-retry'") ?? 0
    }

    /// The last anchor handed out.
    public func currentAnchor() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'anchor'") ?? 0
    }

    static func workoutRecord(_ row: Row) -> WorkoutRecord {
        var record = WorkoutRecord(
            id: WorkoutID(row["id"] as String)!,
            owner: row["owner"],
            source: WorkoutSource(rawValue: row["source"]) ?? .gpx,
            sourceID: row["source_id"],
            activity: ActivityType(rawValue: row["activity"]) ?? .other,
            name: row["name"],
            summary: WorkoutSummary(route: Route(), heartRate: []),
            timeZoneOffset: row["tz_offset"],
            routeVersion: row["route_version"],
            routeHash: row["route_hash"],
            heartRateHash: row["hr_hash"],
            anchor: row["anchor"])
        record.start = (row["start_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.end = (row["end_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.distance = row["distance"]
        record.duration = row["duration"]
        record.elevationGain = row["elevation_gain"]
        record.heartRateAverage = row["hr_avg"]
        record.heartRateMax = row["hr_max"]
        record.pointCount = row["point_count"]
        record.calories = row["calories"]
        record.heartRateSamples = row["hr_samples"]
        record.deviceSource = row["device_source"]
        record.deviceFigures = (row["device_figures"] as String?).map { $0.split(separator: ",").map(String.init) }
        if let name = row["file_name"] as String?, let sha256 = row["file_sha256"] as String? {
            record.file = WorkoutFile(
                name: name, size: row["file_size"] ?? 0, sha256: sha256, format: row["file_format"] ?? "", readerVersion: row["reader_version"] ?? 1)
            record.originalKept = row["original_kept"]
        }
        return record
    }

    static func pictureRecord(_ row: Row) -> PictureRecord {
        PictureRecord(
            picture: PictureID(
                workoutID: WorkoutID(row["workout_id"] as String)!, kind: JobKind(rawValue: row["kind"]) ?? .route,
                theme: Theme(rawValue: row["theme"]) ?? .light, scale: row["scale"]),
            status: JobStatus(rawValue: row["status"]) ?? .pending,
            reason: row["reason"],
            cacheKey: row["cache_key"],
            attempts: row["attempts"],
            updatedAt: Date(timeIntervalSince1970: row["updated_at"]),
            map: (row["map"] as String?).flatMap(MapCoverage.init(rawValue:)))
    }
}
