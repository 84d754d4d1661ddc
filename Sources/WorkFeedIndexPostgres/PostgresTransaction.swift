import Foundation
public import Logging
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// One write transaction of a coordinator on the PostgreSQL index: the state the index contract's
/// writes carry from one statement to the next (its anchors, the keys it releases, the summary
/// buckets it changed), over a session in a transaction (``PostgresSession/transaction(_:_:)``).
///
/// By concern, each in its own file: imports and deletes here (the rules are
/// ``PreparedImport``'s); summaries' rows (`PostgresTransaction+Summaries.swift`, the rules
/// ``SummaryStorage``'s).
///
/// Every owner's workouts and summaries are changed under that owner's transaction-scoped
/// advisory lock (``lockOwner(_:)``): two coordinators importing the same file, or two copies of
/// one activity, or counting into the same buckets, take turns; other owners never wait.
public struct PostgresTransaction {
    public let session: PostgresSession
    /// The coordinator whose transaction this is: the holder of the leases it takes.
    public let coordinator: String
    public var anchors = PostgresAnchors()
    public let summaryZoneDefaults: SummaryZoneDefaults
    public let countsSummaries: Bool
    public var summaryWork = SummaryWork()
    /// The owner whose job was leased last at each priority (the next claim starts after it);
    /// the store keeps it from one transaction to the next.
    public var lastServed: [Int64: String] = [:]
    /// This writer's lead (the store keeps it from one transaction to the next).
    public var leadership = PostgresLeadership()
    /// How long this writer's leases live unless renewed (``PostgresLeases/defaultLeaseSeconds``).
    public var leaseSeconds = PostgresLeases.defaultLeaseSeconds
    /// Cache keys no job stored any more when this transaction let them go (checked again when
    /// it ends: a key let go may be stored again later in it).
    public private(set) var releasedKeys: [String] = []
    /// Pictures workers wrote that no job stores (``LeftoverPicture``).
    public internal(set) var leftovers: [LeftoverPicture] = []
    /// The owners whose lock this transaction holds.
    private var lockedOwners: Set<String> = []

    public init(
        session: PostgresSession, coordinator: String = "", zoneDefaults: SummaryZoneDefaults = .standard, countsSummaries: Bool = true
    ) {
        self.session = session
        self.coordinator = coordinator
        self.summaryZoneDefaults = zoneDefaults
        self.countsSummaries = countsSummaries
    }

    /// Takes `owner`'s lock for the rest of the transaction (once).
    mutating func lockOwner(_ owner: String) throws(IndexError) {
        guard lockedOwners.insert(owner).inserted else { return }
        try session.query(
            "SELECT pg_advisory_xact_lock(hashtextextended('workfeed.owner.' || \(owner), 0))", "waiting for the lock of owner \(owner)")
    }

    /// Writes what the transaction kept for its end (the summary buckets it changed); called
    /// once, before it commits.
    public mutating func finish() throws(IndexError) {
        try flushSummaryBuckets()
    }

    // MARK: Importing

    /// Stores an imported workout by the rules of docs/import.md, as
    /// ``IndexWriting/importWorkout(_:owner:allowDuplicates:originalKept:now:replacedFile:)``
    /// does. Times of jobs are the database's.
    public mutating func importWorkout(
        _ workout: ImportedWorkout, owner: String, allowDuplicates: Bool = false, originalKept: Bool = false,
        replacedFile: (String) -> Void = { _ in }
    ) throws -> ImportReply {
        let incoming = try PreparedImport(workout, owner: owner)
        try lockOwner(owner)
        let (stored, adopted) = try incoming.lookUp(storedWorkout)
        let fields = incoming.fields(originalKept: originalKept, stored: stored?.workout)
        let step = try incoming.step(
            stored: stored?.workout, adopted: adopted, allowDuplicates: allowDuplicates, unchangedFields: { _ in stored?.fields == fields.values },
            duplicate: { try duplicate(of: incoming.workout.route, start: incoming.summary.start, owner: owner) })
        if let previous = incoming.replacedFile(by: step) { replacedFile(previous) }
        switch step {
        case .duplicate, .unchanged, .keptRicher:
            return incoming.reply(step, insertedAs: incoming.identity.workoutID)
        case .insert:
            let id = try incoming.freeID { id throws(IndexError) in
                try session.query("SELECT 1 FROM workout WHERE id = \(id.uuid)", "looking for workout \(id)").contains { _ in true }
            }
            try insert(id, incoming, fields: fields)
            if countsSummaries { try countSummary(of: id, as: incoming.counted(id), heartRate: incoming.workout.heartRate, fromRebuild: false) }
            return incoming.reply(step, insertedAs: id)
        case .refresh(let known):
            var values = fields.values
            var names = WorkoutFields.names
            names += ["source_id"]
            values.append(.text(incoming.identity.sourceID))
            try update(known.id, names: names, values: values)
            try recountSummary(of: known.id, as: incoming.counted(known.id), heartRate: incoming.workout.heartRate)
            return incoming.reply(step, insertedAs: known.id)
        case .replaceDuplicate(let known, _), .update(let known):
            try replace(known.id, with: incoming, fields: fields, version: known.routeVersion + 1)
            try recountSummary(of: known.id, as: incoming.counted(known.id), heartRate: incoming.workout.heartRate)
            return incoming.reply(step, insertedAs: known.id)
        }
    }

    /// A stored workout as an import compares it, with its fields (in ``WorkoutFields/names``' order).
    private struct Stored {
        var workout: StoredWorkout
        var fields: [StoredValue]

        static let columns =
            "id, route_version, route_hash, hr_hash, point_count, hr_samples, file_name, file_sha256, original_kept, "
            + WorkoutFields.names.joined(separator: ", ")
        static let columnCount = 9 + WorkoutFields.names.count

        init(_ row: PostgresRow) throws {
            let cells = row.makeRandomAccess()
            let id = WorkoutID(try cells[0].decode(UUID.self))
            workout = StoredWorkout(
                id: id, routeVersion: try cells[1].decode(Int.self), routeHash: try cells[2].decode(String.self),
                heartRateHash: try cells[3].decode(String.self), pointCount: try cells[4].decode(Int.self),
                heartRateSamples: try cells[5].decode(Int.self), fileName: try cells[6].decode(String?.self),
                fileSHA256: try cells[7].decode(String?.self), originalKept: try cells[8].decode(Bool.self))
            fields = try row.storedValues(from: 9, names: WorkoutFields.names)
        }
    }

    private func storedWorkout(_ identity: WorkoutIdentity) throws -> Stored? {
        try session.query(
            """
            SELECT \(unescaped: Stored.columns) FROM workout
            WHERE owner = \(identity.owner) AND source = \(identity.source.rawValue) AND source_id = \(identity.sourceID)
            """, "looking for the workout of \(identity.source.rawValue) \(identity.sourceID)"
        ).firstDecoded("the workout of \(identity.source.rawValue) \(identity.sourceID)", Stored.init)
    }

    /// A stored workout of the same owner that is the same activity as a new one (``PreparedImport/duplicateWindow``, ``RouteOverlap``).
    private func duplicate(of route: Route, start: Date?, owner: String) throws -> StoredWorkout? {
        guard let start, !route.isEmpty else { return nil }
        let at = start.timeIntervalSince1970
        let window = PreparedImport.duplicateWindow
        let candidates = try session.query(
            """
            SELECT \(unescaped: Stored.columns.split(separator: ",").map { "w." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")),
                s.route
            FROM workout w JOIN series s ON s.workout_id = w.id
            WHERE w.start_at > \(at - window) AND w.start_at < \(at + window) AND w.point_count > 0 AND w.owner = \(owner)
            ORDER BY abs(w.start_at - \(at)), w.id
            """, "looking for a copy of the workout starting at \(at)"
        ).decoded("the workouts starting near \(at)") { row in
            (try Stored(row).workout, try row.makeRandomAccess()[Stored.columnCount].decode(ByteBuffer.self))
        }
        for (candidate, series) in candidates {
            guard let storedRoute = try? SeriesCodec.decodeRoute(Data(series.readableBytesView)) else {
                throw IndexError.corruptRow(
                    table: "series", row: candidate.id.description, column: "route",
                    value: "a blob of \(series.readableBytes) bytes that is not a route series (docs/series-format.md)")
            }
            if RouteOverlap.overlaps(route, storedRoute) { return candidate }
        }
        return nil
    }

    private mutating func insert(_ id: WorkoutID, _ incoming: PreparedImport, fields: WorkoutFields) throws {
        let names =
            ["id", "owner", "source", "source_id", "route_version", "route_hash", "hr_hash", "hr_samples", "point_count"] + WorkoutFields.names
        var bindings = PostgresBindings()
        bindings.append(id.uuid)
        bindings.append(incoming.identity.owner)
        bindings.append(incoming.workout.source.rawValue)
        bindings.append(incoming.identity.sourceID)
        bindings.append(1)
        bindings.append(incoming.routeHash)
        bindings.append(incoming.heartRateHash)
        bindings.append(incoming.workout.heartRate.count)
        bindings.append(incoming.summary.pointCount)
        for value in fields.values { value.bind(into: &bindings) }
        let k = anchors.next()
        bindings.append(k)
        let placeholders = (1...names.count).map { "$\($0)" }.joined(separator: ", ")
        try session.query(
            PostgresQuery(
                unsafeSQL:
                    "INSERT INTO workout (\(names.joined(separator: ", ")), anchor) VALUES (\(placeholders), workfeed_anchor($\(names.count + 1)::int))",
                binds: bindings), "storing workout \(id)")
        try session.query(
            """
            INSERT INTO series (workout_id, route, heart_rate) VALUES (\(id.uuid), \(ByteBuffer(bytes: incoming.route)), \(ByteBuffer(bytes: incoming.heartRate)))
            """, "storing the series of workout \(id)")
        try session.query("DELETE FROM deleted_workout WHERE id = \(id.uuid)", "forgetting the deletion of workout \(id)")
        try session.query(
            "INSERT INTO owner_state (owner) VALUES (\(incoming.identity.owner)) ON CONFLICT (owner) DO NOTHING",
            "making the state of owner \(incoming.identity.owner)")
    }

    /// Writes `values` into columns `names` of a workout, with a new anchor.
    private mutating func update(_ id: WorkoutID, names: [String], values: [StoredValue]) throws {
        var bindings = PostgresBindings()
        for value in values { value.bind(into: &bindings) }
        bindings.append(anchors.next())
        bindings.append(id.uuid)
        let assignments = names.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
        try session.query(
            PostgresQuery(
                unsafeSQL: "UPDATE workout SET \(assignments), anchor = workfeed_anchor($\(names.count + 1)::int) WHERE id = $\(names.count + 2)",
                binds: bindings), "updating workout \(id)")
    }

    /// Replaces a stored workout's copy: its identity, figures, file and series; a new route
    /// version, and every picture `pending` again (the new anchor makes a worker's late report on
    /// the old inputs stale).
    private mutating func replace(_ id: WorkoutID, with incoming: PreparedImport, fields: WorkoutFields, version: Int) throws {
        let names = WorkoutFields.names + ["source", "source_id", "route_version", "route_hash", "hr_hash", "hr_samples", "point_count"]
        let values =
            fields.values + [
                .text(incoming.identity.source.rawValue), .text(incoming.identity.sourceID), .integer(Int64(version)), .text(incoming.routeHash),
                .text(incoming.heartRateHash), .integer(Int64(incoming.workout.heartRate.count)), .integer(Int64(incoming.summary.pointCount)),
            ]
        try update(id, names: names, values: values)
        try session.query(
            """
            UPDATE series SET route = \(ByteBuffer(bytes: incoming.route)), heart_rate = \(ByteBuffer(bytes: incoming.heartRate))
            WHERE workout_id = \(id.uuid)
            """, "replacing the series of workout \(id)")
        // Each job its own anchor (docs/postgres-index.md, "Anchors").
        let jobs = try session.query("SELECT id FROM job WHERE workout_id = \(id.uuid) ORDER BY id", "listing the jobs of workout \(id)")
            .decoded("the jobs of workout \(id)") { try $0.decode(Int64.self) }
        if !jobs.isEmpty {
            let first = try anchors.reserve(jobs.count)
            try session.query(
                """
                UPDATE job SET status = 'pending', reason = NULL, reason_code = NULL, attempts = 0, not_before = NULL, updated_at = now(),
                    anchor = workfeed_anchor((\(first) + u.n - 1)::int)
                FROM unnest(\(jobs)::bigint[]) WITH ORDINALITY AS u(id, n) WHERE job.id = u.id
                """, "making the pictures of workout \(id) pending again")
        }
        try movePictures(of: id)
    }

    /// A picture exists only for a workout with every input its kind needs (``PictureKind/workoutCondition``):
    /// when a workout gains it, the pictures of that kind asked for it become jobs; when it loses
    /// it, those jobs go back to being wanted. Called after the workout's row was updated.
    private mutating func movePictures(of id: WorkoutID) throws {
        for kind in PictureKind.allCases {
            guard let condition = kind.workoutCondition else { continue }
            let wanted =
                try session.query(
                    """
                    SELECT count(*)::bigint FROM picture_wanted p JOIN workout w ON w.id = p.workout_id
                    WHERE p.workout_id = \(id.uuid) AND p.kind = \(kind.rawValue) AND \(unescaped: condition)
                    """, "counting the wanted \(kind.rawValue) pictures of workout \(id)"
                ).firstDecoded("the wanted pictures") { try $0.decode(Int.self) } ?? 0
            if wanted > 0 {
                let first = try anchors.reserve(wanted)
                try session.query(
                    """
                    INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor, owner)
                    SELECT p.workout_id, p.kind, p.theme, p.scale, 'pending', p.priority, now(),
                        workfeed_anchor((\(first) + row_number() OVER (ORDER BY p.theme, p.scale) - 1)::int), w.owner
                    FROM picture_wanted p JOIN workout w ON w.id = p.workout_id
                    WHERE p.workout_id = \(id.uuid) AND p.kind = \(kind.rawValue) AND \(unescaped: condition)
                    ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                    """, "making the wanted \(kind.rawValue) pictures of workout \(id) jobs")
            }
            try session.query(
                """
                DELETE FROM picture_wanted WHERE workout_id = \(id.uuid) AND kind = \(kind.rawValue)
                    AND EXISTS (SELECT 1 FROM workout w WHERE w.id = \(id.uuid) AND \(unescaped: condition))
                """, "forgetting the wanted \(kind.rawValue) pictures of workout \(id)")
            try session.query(
                """
                INSERT INTO picture_wanted (workout_id, kind, theme, scale, priority)
                SELECT j.workout_id, j.kind, j.theme, j.scale, j.priority FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE j.workout_id = \(id.uuid) AND j.kind = \(kind.rawValue) AND NOT (\(unescaped: condition))
                ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
                """, "remembering the \(kind.rawValue) pictures workout \(id) can no longer have")
            try session.query(
                """
                DELETE FROM job WHERE workout_id = \(id.uuid) AND kind = \(kind.rawValue)
                    AND NOT EXISTS (SELECT 1 FROM workout w WHERE w.id = \(id.uuid) AND \(unescaped: condition))
                """, "removing the \(kind.rawValue) jobs workout \(id) can no longer have")
        }
    }

    // MARK: Deleting

    /// Deletes workouts (only `owner`'s when given) with their series and jobs, as
    /// ``IndexWriting/delete(_:owner:)`` does: a tombstone for CHANGES, their leases ended (and
    /// remembered, so that a late report still names its picture), and the pictures each had.
    public mutating func delete(_ ids: [WorkoutID], owner: String? = nil) throws -> [WorkoutID: [PictureID]] {
        var deleted: [WorkoutID: [PictureID]] = [:]
        for id in ids {
            guard
                let stored = try session.query("SELECT owner FROM workout WHERE id = \(id.uuid)", "looking for workout \(id)")
                    .firstDecoded("the owner of workout \(id)", { try $0.decode(String.self) }),
                owner == nil || stored == owner
            else { continue }
            try lockOwner(stored)
            let jobs = try session.query(
                "SELECT id, workout_id, kind, theme, scale, cache_key FROM job WHERE workout_id = \(id.uuid) ORDER BY id FOR UPDATE",
                "locking the jobs of workout \(id)"
            ).decoded("the jobs of workout \(id)") { row in
                let cells = row.makeRandomAccess()
                let picture = try PostgresLeases.picture(
                    "job", row: String(try cells[0].decode(Int64.self)), workout: cells[1].decode(UUID.self), kind: cells[2].decode(String.self),
                    theme: cells[3].decode(String.self), scale: cells[4].decode(Int.self))
                return (picture, try cells[5].decode(String?.self))
            }
            let leased = try LeasedRow.locked(
                "\(unescaped: LeasedRow.selection) WHERE j.workout_id = \(id.uuid) AND j.lease_id IS NOT NULL FOR UPDATE OF j",
                "the leased jobs of workout \(id)", in: session)
            try LeasedRow.end(leased, remembered: true, in: session)
            try uncountSummary(of: id)
            try session.query("DELETE FROM workout WHERE id = \(id.uuid)", "deleting workout \(id)")
            try release(jobs.compactMap(\.1))
            try session.query(
                """
                INSERT INTO deleted_workout (id, owner, anchor) VALUES (\(id.uuid), \(stored), workfeed_anchor(\(anchors.next())::int))
                ON CONFLICT (id) DO UPDATE SET anchor = excluded.anchor, owner = excluded.owner
                """, "leaving the tombstone of workout \(id)")
            deleted[id] = jobs.map(\.0)
        }
        return deleted
    }

    /// Notes `key` in ``releasedKeys`` when no job stores it and no worker is drawing it.
    mutating func release(_ key: String) throws(IndexError) {
        try release([key])
    }

    /// ``release(_:)`` for several keys, in one statement.
    mutating func release(_ keys: [String]) throws(IndexError) {
        guard !keys.isEmpty else { return }
        let unused = try session.query(
            """
            WITH drawn AS MATERIALIZED (SELECT lease_key FROM job WHERE lease_id IS NOT NULL AND lease_key = ANY(\(keys)::text[]))
            SELECT k FROM unnest(\(keys)::text[]) WITH ORDINALITY AS u(k, n)
            WHERE NOT EXISTS (SELECT 1 FROM job WHERE cache_key = u.k) AND NOT EXISTS (SELECT 1 FROM drawn WHERE lease_key = u.k)
            ORDER BY n
            """, "looking for \(keys.count) keys"
        ).decoded("the keys no job stores") { try $0.decode(String.self) }
        releasedKeys += unused
    }
}
