public import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel
public import WorkFeedPrivacy

/// The index's reads (``IndexReading``) over a PostgreSQL session, in the session's transaction
/// (a read transaction of its own, or the write transaction it is the reader of). Rows become
/// model values through the index's own decoders (``StoredValue``), so that a corrupt row is
/// named as SQLite's would be.
public struct PostgresReader: IndexReading {
    public let session: PostgresSession

    public init(session: PostgresSession) { self.session = session }

    // MARK: Workouts and their files

    public func workoutCount(owner: String?) throws -> Int { try PostgresWorkouts.count(owner: owner, in: session) }

    public func workoutIDs(owner: String) throws -> [WorkoutID] { try PostgresWorkouts.ids(owner: owner, in: session) }

    public func workouts(withPrefix prefix: String, limit: Int) throws -> [WorkoutID] {
        try PostgresWorkouts.ids(withPrefix: prefix, limit: limit, in: session)
    }

    public func workout(_ id: WorkoutID, owner: String?) throws -> WorkoutRecord? {
        guard let record = try PostgresWorkouts.record(id, in: session) else { return nil }
        return owner == nil || record.owner == owner ? record : nil
    }

    public func file(of id: WorkoutID) throws -> (file: WorkoutFile, positionInFile: Int, originalKept: Bool)? {
        guard let record = try PostgresWorkouts.record(id, in: session), let file = record.file else { return nil }
        let position = try session.query("SELECT position_in_file FROM workout WHERE id = \(id.uuid)", "reading where workout \(id) is in its file")
            .firstDecoded("the position of workout \(id)") { try $0.decode(Int.self) }
        return (file, position ?? 0, record.originalKept ?? false)
    }

    public func fileHashes(of ids: [WorkoutID]) throws -> Set<String> { try PostgresWorkouts.fileHashes(of: ids, in: session) }
    public func keptOriginals(of ids: [WorkoutID]) throws -> Set<String> { try PostgresWorkouts.keptOriginals(of: ids, in: session) }

    public func unreferencedFiles(_ hashes: Set<String>) throws -> [String] { try PostgresWorkouts.unreferencedFiles(hashes, in: session) }

    // MARK: Status and the queue

    public func statusCounts(owner: String?) throws -> [StatusCount] {
        try PostgresStatus.statusCounts(owner: owner, in: session).map { ($0.kind, $0.theme, $0.scale, $0.status, $0.count) }
    }

    public func statusCounts(of selection: EnqueueRequest, scales: [Int]) throws -> [StatusCount] {
        let kinds = Set(selection.kinds)
        let themes = Set(selection.themes)
        let wanted = Set(selection.scales ?? scales)
        if selection.ids == nil, selection.activities == nil, selection.since == nil, selection.until == nil {
            return try statusCounts(owner: selection.owner).filter {
                kinds.contains($0.kind) && themes.contains($0.theme) && wanted.contains($0.scale)
            }
        }
        var statement = PostgresStatement()
        let picked =
            "j.kind = ANY(\(statement.bind(selection.kinds.map(\.rawValue)))) AND j.theme = ANY(\(statement.bind(selection.themes.map(\.rawValue)))) AND j.scale = ANY(\(statement.bind((selection.scales ?? scales).map(Int64.init))))"
        let workouts = statement.workouts(of: selection)
        statement.sql = """
            SELECT j.kind, j.theme, j.scale, j.status, count(*)::bigint FROM job j JOIN workout w ON w.id = j.workout_id
            WHERE \(picked) AND \(workouts)
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            """
        return try session.query(statement.query, "counting the jobs of a selection").decoded("the jobs of a selection") { row in
            let count = try PostgresStatus.statusCount(row, table: "job")
            return (count.kind, count.theme, count.scale, count.status, count.count)
        }
    }

    public func mapCoverageCounts() throws -> [(kind: PictureKind, theme: Theme, map: String, count: Int)] {
        try session.query(
            """
            SELECT kind, theme, coalesce(map, 'unknown'), count(*)::bigint FROM job WHERE status = 'generated' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
            """, "counting the pictures by map"
        ).decoded("the pictures by map") { row in
            let (kind, theme, map, count) = try row.decode((String, String, String, Int).self)
            guard let kind = PictureKind(rawValue: kind) else {
                throw IndexError.corruptRow(table: "job", row: map, column: "kind", value: "'\(kind)'")
            }
            guard let theme = Theme(rawValue: theme) else {
                throw IndexError.corruptRow(table: "job", row: map, column: "theme", value: "'\(theme)'")
            }
            return (kind, theme, map, count)
        }
    }

    /// With the database's clock: `now` is the coordinator's, which every coordinator's differs from.
    public func pendingReadyCount(now: Date) throws -> Int { try PostgresStatus.pendingReadyCount(in: session) }

    public func oldestPending() throws -> Date? { try PostgresStatus.oldestPending(in: session) }

    // MARK: Pictures and failures

    public func pictures(of id: WorkoutID) throws -> [PictureRecord] {
        try pictures("WHERE workout_id = \(id.uuid) ORDER BY kind, theme, scale", "the pictures of workout \(id)")
    }

    public func pictures(of ids: [WorkoutID]) throws -> [WorkoutID: [PictureRecord]] {
        guard !ids.isEmpty else { return [:] }
        let records = try pictures(
            "WHERE workout_id = ANY(\(ids.map(\.uuid))) ORDER BY workout_id, kind, theme, scale", "the pictures of \(ids.count) workouts")
        return Dictionary(grouping: records, by: \.picture.workoutID)
    }

    /// Jobs of `condition` (a `WHERE` and its order), read by the index's own decoder.
    private func pictures(_ condition: PostgresQuery, _ reading: String) throws(IndexError) -> [PictureRecord] {
        var query = PostgresQuery(unsafeSQL: "SELECT \(IndexReader.pictureColumns) FROM job ")
        query.sql += condition.sql
        query.binds = condition.binds
        return try session.query(query, "reading \(reading)").decoded(reading) { row in
            try IndexReader.pictureRecord(row.storedValues(names: PostgresTransaction.names(IndexReader.pictureColumns)))
        }
    }

    public func generatedPictures(_ body: (PictureID, String) throws -> Bool) throws {
        // In pages of ids, so that a large index is never read into memory at once.
        var after: Int64 = 0
        while true {
            let page = try session.query(
                """
                SELECT id, workout_id, kind, theme, scale, cache_key FROM job
                WHERE status = 'generated' AND cache_key IS NOT NULL AND id > \(after) ORDER BY id LIMIT 1000
                """, "reading the generated pictures"
            ).decoded("the generated pictures") { row in
                let (id, workout, kind, theme, scale, key) = try row.decode((Int64, UUID, String, String, Int, String).self)
                return (id, try PostgresLeases.picture("job", row: String(id), workout: workout, kind: kind, theme: theme, scale: scale), key)
            }
            for (_, picture, key) in page { guard try body(picture, key) else { return } }
            guard page.count == 1000, let last = page.last else { return }
            after = last.0
        }
    }

    public func isStored(key: String) throws -> Bool {
        try session.query("SELECT 1 FROM job WHERE cache_key = \(key) LIMIT 1", "looking for the key \(key)").contains { _ in true }
    }

    public func isGenerated(key: String) throws -> Bool {
        try session.query("SELECT 1 FROM job WHERE cache_key = \(key) AND status = 'generated' LIMIT 1", "looking for the generated key \(key)")
            .contains { _ in true }
    }

    public func storedKey(of picture: PictureID) throws -> String? {
        try session.query(
            """
            SELECT cache_key FROM job
            WHERE workout_id = \(picture.workoutID.uuid) AND kind = \(picture.kind.rawValue) AND theme = \(picture.theme.rawValue) AND scale = \(picture.scale)
            """, "reading the key of \(picture)"
        ).firstDecoded("the key of \(picture)") { try $0.decode(String?.self) } ?? nil
    }

    public func failureGroups(limit: Int) throws -> [(code: String, count: Int, example: String)] {
        try PostgresStatus.failureGroups(limit: limit, in: session)
    }

    public func failedPictures(limit: Int) throws -> [PictureRecord] {
        try pictures("WHERE status = 'failed-no-retry' ORDER BY updated_at DESC, id LIMIT \(limit)", "the failed pictures")
    }

    public func failedCount() throws -> Int { try PostgresStatus.failedCount(in: session) }

    // MARK: Feed, changes, anchors

    public func feed(limit: Int, cursor: String?, owner: String?) throws -> (workouts: [WorkoutRecord], next: String?) {
        var statement = PostgresStatement()
        var conditions: [String] = []
        if let owner { conditions.append("owner = \(statement.bind(owner))") }
        if let cursor {
            guard let position = FeedCursor(cursor) else { throw IndexError(.badCursor, "not a feed cursor: \(cursor.prefix(80))") }
            // The feed indexes' order, as a row value: PostgreSQL turns it into a range of the index.
            conditions.append("(coalesce(start_at, -1e18), id) < (\(statement.bind(position.start)), \(statement.bind(position.id.uuid)))")
        }
        statement.sql = "SELECT \(IndexReader.workoutColumns) FROM workout"
        if !conditions.isEmpty { statement.sql += " WHERE " + conditions.joined(separator: " AND ") }
        statement.sql += " ORDER BY coalesce(start_at, -1e18) DESC, id DESC LIMIT \(statement.bind(limit + 1))"
        var workouts = try session.query(statement.query, "reading the feed").decoded("the feed") { row in
            try IndexReader.workoutRecord(row.storedValues(names: IndexReader.workoutColumnNames))
        }
        var next: String?
        if workouts.count > limit {
            workouts.removeLast()
            if let last = workouts.last { next = Self.feedCursor(after: last) }
        }
        return (workouts, next)
    }

    public static func feedCursor(after workout: WorkoutRecord) -> String { IndexReader.feedCursor(after: workout) }

    public func changes(since anchor: Int64, limit: Int, owner: String?) throws -> (changes: [WorkoutChange], more: Bool) {
        try PostgresChanges.changes(since: anchor, limit: limit, owner: owner, in: session)
    }

    public func currentAnchor() throws -> Int64 { try PostgresChanges.currentAnchor(in: session) }

    // MARK: Privacy

    public func series(of id: WorkoutID) throws -> (route: [UInt8], heartRate: [UInt8])? {
        try session.query("SELECT route, heart_rate FROM series WHERE workout_id = \(id.uuid)", "reading the series of workout \(id)")
            .firstDecoded("the series of workout \(id)") { row in
                let (route, heartRate) = try row.decode((ByteBuffer, ByteBuffer).self)
                return (Array(route.readableBytesView), Array(heartRate.readableBytesView))
            }
    }

    public func privacyZones(owner: String) throws -> [PrivacyZone] { try PostgresPrivacy.zones(owner: owner, in: session) }

    public func ownersWithPrivacyZones() throws -> [String] { try PostgresPrivacy.ownersWithZones(in: session) }

    public func keptRemovals(limit: Int) throws -> [String] {
        try session.query("SELECT name FROM removal ORDER BY since, name LIMIT \(limit)", "reading the removals that wait")
            .decoded("the removals that wait") { try $0.decode(String.self) }
    }

    public func keptRemovalCount() throws -> (count: Int, oldest: Date?) {
        let found = try session.query("SELECT count(*)::bigint, min(since) FROM removal", "counting the removals that wait")
            .firstDecoded("the removals that wait") { try $0.decode((Int64, Double?).self) }
        return (Int(found?.0 ?? 0), found?.1.map(Date.init(timeIntervalSince1970:)))
    }

    public func keptReply(owner: String, key: String) throws -> KeptReply? {
        try session.query("SELECT digest, reply FROM kept_reply WHERE owner = \(owner) AND key = \(key)", "reading a kept reply")
            .firstDecoded("a kept reply") { try $0.decode((String, ByteBuffer).self) }
            .map { KeptReply(digest: $0.0, reply: Array($0.1.readableBytesView)) }
    }

    public func isWithdrawn(key: String) throws -> Bool { try PostgresPrivacy.isWithdrawn(key: key, in: session) }

    // MARK: Owner settings

    public func ownerSettings(owner: String) throws -> OwnerSettings { try PostgresWorkouts.settings(owner: owner, in: session) }

    public func pictureSettings() throws -> [String: OwnerSettings] {
        var settings: [String: OwnerSettings] = [:]
        let rows = try session.query(
            "SELECT \(unescaped: IndexReader.settingsColumns) FROM owner_settings WHERE \(unescaped: IndexReader.picturesSettingsCondition)",
            "reading the owners' units and card figures")
        for row in rows {
            let values = try row.storedValues(names: PostgresTransaction.names(IndexReader.settingsColumns))
            guard case .text(let owner) = values[0] else { continue }
            settings[owner] = try IndexReader.ownerSettings(values)
        }
        return settings
    }

    public func heartRateZoneSettings() throws -> [String: HeartRateZoneSetting] {
        var settings: [String: HeartRateZoneSetting] = [:]
        let rows = try session.query(
            "SELECT \(unescaped: IndexReader.settingsColumns) FROM owner_settings WHERE hr_maximum IS NOT NULL OR hr_bounds IS NOT NULL",
            "reading the owners' heart-rate zones")
        for row in rows {
            let values = try row.storedValues(names: PostgresTransaction.names(IndexReader.settingsColumns))
            guard case .text(let owner) = values[0] else { continue }
            settings[owner] = try IndexReader.ownerSettings(values).heartRateZones
        }
        return settings
    }

    // MARK: Summaries

    public func summaries(
        owner: String, period: SummaryPeriod, from: Int?, to: Int?, activity: ActivityType?, defaults: SummaryZoneDefaults, now: Date
    ) throws -> SummaryReport {
        let transaction = PostgresTransaction(session: session, zoneDefaults: defaults)
        return try SummaryReport.assemble(
            owner: owner, period: period, from: from, to: to, activity: activity, now: now, stored: transaction.summaryOwnerRow(owner),
            wanted: { try transaction.wantedCalendar(owner: owner) }, anchor: currentAnchor()
        ) { firstStart, lastStart in
            var statement = PostgresStatement()
            var sql = """
                SELECT start_day, activity, \(SummaryRows.bucketColumns) FROM summary_bucket
                WHERE owner = \(statement.bind(owner)) AND period = \(statement.bind(period.rawValue))
                    AND start_day >= \(statement.bind(firstStart)) AND start_day <= \(statement.bind(lastStart))
                """
            if let activity { sql += " AND activity = \(statement.bind(activity.rawValue))" }
            statement.sql = sql
            var rows: [Int: [String: SummaryTotals]] = [:]
            let names = PostgresTransaction.names(SummaryRows.bucketColumns)
            for row in try session.query(statement.query, "reading the summaries of \(owner)") {
                let (start, name) = try row.decode((Int, String).self)
                let id = "\(owner) \(period.rawValue) \(start) \(name)"
                rows[start, default: [:]][name] = try SummaryRows.totals(row.storedValues(from: 2, names: names), id: id)
            }
            return rows
        }
    }

    public func summaryRebuilds() throws -> [String: SummaryRebuild] {
        let transaction = PostgresTransaction(session: session)
        var result: [String: SummaryRebuild] = [:]
        let owners = try session.query(
            "SELECT owner FROM summary_owner WHERE rebuild_pending OR rebuild_after IS NOT NULL ORDER BY owner", "listing the summary rebuilds"
        ).decoded("the summary rebuilds") { try $0.decode(String.self) }
        for owner in owners { if let progress = try transaction.summaryOwnerRow(owner)?.rebuild { result[owner] = progress } }
        return result
    }

    public func summaryState(owner: String) throws -> SummaryOwnerState? {
        try PostgresTransaction(session: session).summaryOwnerRow(owner)
    }

    public func coordinators() throws -> [RunningCoordinator] {
        try session.query(
            """
            SELECT c.id, c.endpoints, extract(epoch FROM now() - c.seen_at)::float8, coalesce(l.holder = c.id AND l.expires_at > now(), false)
            FROM coordinator c LEFT JOIN leader l ON l.role = 'periodic' ORDER BY c.id
            """, "listing the coordinators"
        ).decoded("the coordinators") { row in
            let (id, endpoints, silent, leads) = try row.decode((String, String, Double, Bool).self)
            return RunningCoordinator(id: id, endpoints: endpoints, silentSeconds: max(0, silent), leads: leads)
        }
    }
}
