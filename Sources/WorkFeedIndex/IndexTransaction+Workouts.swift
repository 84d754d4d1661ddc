public import Foundation
import GRDB
public import WorkFeedModel

extension IndexTransaction {
    // MARK: Importing and updating

    /// Stores an imported workout, following the rules of docs/import.md ("Identity and
    /// re-import"):
    ///
    /// - **Identity**: ``WorkoutIdentity``: the source's own id, else the SHA-256 of the file's
    ///   bytes. A workout stored before files were remembered (identified by a hash of its series)
    ///   is recognised by that hash and takes the new identity.
    /// - **New**: stored, unless another workout starts within a minute of it and their tracks
    ///   overlap (``RouteOverlap``): then it is a duplicate and nothing is stored
    ///   (`allowDuplicates` stores it anyway).
    /// - **Known, same series**: `unchanged`; its figures and file details are refreshed when they
    ///   differ (`refreshed`), without a new route version.
    /// - **Known, other series**: a copy from another file with fewer points or fewer heart-rate
    ///   samples than the stored one leaves the stored copy as it is (`kept-richer`); otherwise
    ///   (a new version from the source, or the same GPX, TCX or FIT file read again by a better
    ///   reader) it
    ///   replaces the stored copy, the route version goes up and every picture becomes `pending`
    ///   again, failed ones too.
    ///
    /// Everything is per owner: a workout is found, updated or found to be a duplicate only among
    /// `owner`'s workouts.
    ///
    /// - Parameters:
    ///   - owner: whose workout it is (``Owner``); part of its identity.
    ///   - originalKept: whether the original file is kept in the cache (the coordinator stored it).
    ///   - replacedFile: called with the SHA-256 of the file the stored copy came from when this
    ///     import replaces it with another file's copy (its original may be kept no more).
    /// - Throws: ``IndexError`` for a workout with neither a source id nor a file, or a database error.
    public mutating func importWorkout(
        _ workout: ImportedWorkout, owner: String = Owner.defaultName, allowDuplicates: Bool = false, originalKept: Bool = false, now: Date = Date(),
        replacedFile: (String) -> Void = { _ in }
    ) throws -> ImportReply {
        let incoming = try PreparedImport(workout, owner: owner)
        let (stored, adopted) = try incoming.lookUp(storedWorkout)
        let fields = incoming.fields(originalKept: originalKept, stored: stored?.workout)
        let step = try incoming.step(
            stored: stored?.workout, adopted: adopted, allowDuplicates: allowDuplicates,
            unchangedFields: { _ in WorkoutColumns(fields).matches(stored!.row) },
            duplicate: { try duplicate(of: incoming.workout.route, start: incoming.summary.start, owner: owner) })
        if let previous = incoming.replacedFile(by: step) { replacedFile(previous) }
        let columns = WorkoutColumns(fields)
        switch step {
        case .duplicate, .unchanged, .keptRicher:
            return incoming.reply(step, insertedAs: incoming.identity.workoutID)
        case .insert:
            let id = try incoming.freeID { id in
                try Int.fetchOne(db, sql: "SELECT 1 FROM workout WHERE id = ?", arguments: [id.description]) != nil
            }
            let anchor = nextAnchor()
            var names = ["id", "owner", "source", "source_id", "route_version", "route_hash", "hr_hash", "hr_samples", "point_count", "anchor"]
            var values: [(any DatabaseValueConvertible)?] = [
                id.description, owner, incoming.workout.source.rawValue, incoming.identity.sourceID, 1, incoming.routeHash,
                incoming.heartRateHash, incoming.workout.heartRate.count, incoming.summary.pointCount, anchor,
            ]
            names += WorkoutFields.names
            values += columns.values
            try db.execute(
                sql: "INSERT INTO workout (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(values))
            try db.cachedStatement(sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)").execute(
                arguments: [id.description, Data(incoming.route), Data(incoming.heartRate)])
            try db.cachedStatement(sql: "DELETE FROM deleted_workout WHERE id = ?").execute(arguments: [id.description])
            // A new row counted nowhere before (a deletion took its id out of the summaries).
            if countsSummaries { try countSummary(of: id, as: incoming.counted(id), heartRate: incoming.workout.heartRate, fromRebuild: false) }
            return incoming.reply(step, insertedAs: id)
        case .refresh(let known):
            try update(known.id, columns: columns, extra: ["source_id": incoming.identity.sourceID, "anchor": nextAnchor()])
            try recountSummary(of: known.id, as: incoming.counted(known.id), heartRate: incoming.workout.heartRate)
            return incoming.reply(step, insertedAs: known.id)
        case .replaceDuplicate(let known, _), .update(let known):
            try replace(known.id, with: incoming, columns: columns, version: known.routeVersion + 1, now: now)
            try recountSummary(of: known.id, as: incoming.counted(known.id), heartRate: incoming.workout.heartRate)
            return incoming.reply(step, insertedAs: known.id)
        }
    }

    /// Replaces a stored workout's copy: its identity, figures, file and series; a new route
    /// version, and every picture `pending` again.
    private mutating func replace(_ id: WorkoutID, with incoming: PreparedImport, columns: WorkoutColumns, version: Int, now: Date) throws {
        let anchor = nextAnchor()
        try update(
            id, columns: columns,
            extra: [
                "source": incoming.identity.source.rawValue, "source_id": incoming.identity.sourceID, "route_version": version,
                "route_hash": incoming.routeHash, "hr_hash": incoming.heartRateHash, "hr_samples": incoming.workout.heartRate.count,
                "point_count": incoming.summary.pointCount, "anchor": anchor,
            ])
        try db.execute(
            sql: "UPDATE series SET route = ?, heart_rate = ? WHERE workout_id = ?",
            arguments: [Data(incoming.route), Data(incoming.heartRate), id.description])
        // The new anchor makes a worker's late report on the old inputs stale (see LeaseTable.Lease.anchor).
        try db.execute(
            sql: """
                UPDATE job SET status = 'pending', reason = NULL, reason_code = NULL, attempts = 0, not_before = NULL, updated_at = ?, anchor = ?
                WHERE workout_id = ?
                """,
            arguments: [now.timeIntervalSince1970, anchor, id.description])
        try movePictures(of: id, now: now, anchor: anchor)
    }

    /// What an import compares of a stored workout, and its row (``WorkoutColumns/matches(_:)``).
    private struct Stored {
        var workout: StoredWorkout
        var row: Row

        /// The columns ``init(_:)`` reads, in its order, then those an import writes.
        static let columns =
            "id, route_version, route_hash, hr_hash, point_count, hr_samples, file_name, file_sha256, original_kept, "
            + WorkoutFields.names.joined(separator: ", ")
        /// The position of the first column after ``columns``.
        static let columnCount = 9 + WorkoutFields.names.count

        init(_ row: Row) throws(IndexError) {
            let decoder = RowDecoder(row, table: "workout")
            workout = StoredWorkout(
                id: try decoder.workoutID(0, "id"), routeVersion: try decoder.value(1, "route_version"),
                routeHash: try decoder.value(2, "route_hash"), heartRateHash: try decoder.value(3, "hr_hash"),
                pointCount: try decoder.value(4, "point_count"), heartRateSamples: try decoder.value(5, "hr_samples"),
                fileName: try decoder.optionalValue(6, "file_name"), fileSHA256: try decoder.optionalValue(7, "file_sha256"),
                originalKept: try decoder.value(8, "original_kept"))
            self.row = row
        }
    }

    private func storedWorkout(_ identity: WorkoutIdentity) throws -> Stored? {
        try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT \(Stored.columns) FROM workout WHERE owner = ? AND source = ? AND source_id = ?"),
            arguments: [identity.owner, identity.source.rawValue, identity.sourceID]
        ).map(Stored.init)
    }

    /// A stored workout of the same owner that is the same activity as a new one: it starts less
    /// than a minute apart and the tracks overlap. Workouts without a track or a start are never
    /// duplicates, and two owners who ran together each keep their own.
    private func duplicate(of route: Route, start: Date?, owner: String) throws -> StoredWorkout? {
        guard let start, !route.isEmpty else { return nil }
        let candidates = try Row.fetchAll(
            db,
            sql: """
                SELECT \(Stored.columns), s.route AS stored_route FROM workout w JOIN series s ON s.workout_id = w.id
                WHERE w.start_at > ? AND w.start_at < ? AND w.point_count > 0 AND w.owner = ?
                ORDER BY abs(w.start_at - ?), w.id
                """,
            arguments: [
                start.timeIntervalSince1970 - PreparedImport.duplicateWindow, start.timeIntervalSince1970 + PreparedImport.duplicateWindow, owner,
                start.timeIntervalSince1970,
            ])
        for row in candidates {
            let candidate = try Stored(row).workout
            let series: Data = try RowDecoder(row, table: "series").value(Stored.columnCount, "route")
            guard let storedRoute = try? SeriesCodec.decodeRoute(series) else {
                throw IndexError.corruptRow(
                    table: "series", row: candidate.id.description, column: "route",
                    value: "a blob of \(series.count) bytes that is not a route series (docs/series-format.md)")
            }
            if RouteOverlap.overlaps(route, storedRoute) { return candidate }
        }
        return nil
    }

    private func update(_ id: WorkoutID, columns: WorkoutColumns, extra: [String: (any DatabaseValueConvertible)?]) throws {
        let extraNames = extra.keys.sorted()
        let names = WorkoutFields.names + extraNames
        let values = columns.values + extraNames.map { extra[$0] ?? nil }
        try db.execute(
            sql: "UPDATE workout SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
            arguments: StatementArguments(values + [id.description]))
    }

    // MARK: Deleting

    /// Deletes workouts, their series and their jobs, leaving a tombstone for `changes` (reported
    /// to the workout's owner).
    /// - Parameter owner: when given, only that owner's workouts are deleted; another owner's ids
    ///   are left alone, as if they were not in the index.
    /// - Returns: the pictures each deleted workout had, so their files can be removed; ids not in
    ///   the index (or not `owner`'s) are left out.
    /// - Throws: ``IndexError`` for a job row that cannot be read (nothing is deleted then: the
    ///   transaction rolls back), or a database error.
    public mutating func delete(_ ids: [WorkoutID], owner: String? = nil) throws -> [WorkoutID: [PictureID]] {
        var deleted: [WorkoutID: [PictureID]] = [:]
        for id in ids {
            guard let stored = try String.fetchOne(db, sql: "SELECT owner FROM workout WHERE id = ?", arguments: [id.description]),
                owner == nil || stored == owner
            else { continue }
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, workout_id, kind, theme, scale, cache_key FROM job WHERE workout_id = ?", arguments: [id.description])
            var pictures: [PictureID] = []
            var keys: [String] = []
            for row in rows {
                let decoder = RowDecoder(row, table: "job")
                pictures.append(try decoder.picture(from: 1))
                if let key: String = try decoder.optionalValue(5, "cache_key") { keys.append(key) }
            }
            try uncountSummary(of: id)
            try db.execute(sql: "DELETE FROM workout WHERE id = ?", arguments: [id.description])
            for key in keys { try release(key) }
            try db.execute(
                sql: """
                    INSERT INTO deleted_workout (id, anchor, owner) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET anchor = excluded.anchor, owner = excluded.owner
                    """,
                arguments: [id.description, nextAnchor(), stored])
            deleted[id] = pictures
        }
        // Their leases end; the workers' reports will find nothing.
        for lease in leases.leases(onWorkouts: Set(deleted.keys)) { leases.remove(lease) }
        return deleted
    }
}

/// ``WorkoutFields`` as SQLite stores them.
private struct WorkoutColumns {
    var values: [(any DatabaseValueConvertible)?]

    init(_ fields: WorkoutFields) {
        values = fields.values.map(\.databaseValue)
    }

    /// Whether the stored row already holds these values.
    func matches(_ row: Row) -> Bool {
        zip(WorkoutFields.names, values).allSatisfy { name, value in
            (row[name] as DatabaseValue) == (value?.databaseValue ?? .null)
        }
    }
}
