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
        guard let identity = WorkoutIdentity(of: workout, owner: owner) else {
            throw IndexError(.refused, "\(workout.origin): the workout has neither a source id nor a file hash to identify it")
        }
        // A heart-rate reading of 0 is no reading (a strap not worn, an app without a sensor): it
        // is never stored, so a workout whose readings are all 0 has no heart rate and no heatmap.
        var workout = workout
        if workout.heartRate.contains(where: { !($0.bpm > 0) }) { workout.heartRate.removeAll { !($0.bpm > 0) } }
        let route = SeriesCodec.encode(workout.route)
        let heartRate = SeriesCodec.encode(workout.heartRate)
        let routeHash = SHA256.hex(route)
        let heartRateHash = SHA256.hex(heartRate)
        let track = WorkoutSummary(route: workout.route, heartRate: workout.heartRate, start: workout.start, end: workout.end)
        let device = workout.device?.shown(trackElevationGain: track.elevationGain)
        let summary = track.applying(device)
        var columns = WorkoutColumns(workout: workout, summary: summary, device: device, originalKept: originalKept)

        var stored = try storedWorkout(identity)
        var adopted = false
        if stored == nil, workout.sourceID == nil {
            // Before files were remembered, a workout without a source id was identified by the
            // hash of its series: the same file, read the same way, finds it.
            stored = try storedWorkout(
                WorkoutIdentity(owner: owner, source: workout.source, sourceID: "sha256:" + SHA256.hex(route + heartRate)))
            adopted = stored != nil
        }

        guard let stored else {
            if !allowDuplicates, let original = try duplicate(of: workout.route, start: summary.start, owner: owner) {
                guard
                    let more = Self.clearlyRicher(
                        points: summary.pointCount, samples: workout.heartRate.count, storedPoints: original.pointCount,
                        storedSamples: original.heartRateSamples)
                else {
                    return ImportReply(
                        id: identity.workoutID, result: .duplicate, routeVersion: 0, duplicateOf: original.id,
                        duplicateFile: original.fileName)
                }
                // This copy of the activity has clearly more: it takes the stored copy's place,
                // under the same id (the feed keeps its row), with the new identity, so that
                // either file imported again finds it.
                if let previous = original.fileSHA256, previous != workout.file?.sha256 { replacedFile(previous) }
                let version = original.routeVersion + 1
                try replace(
                    original.id, identity: identity, columns: columns, route: route, heartRate: heartRate, routeHash: routeHash,
                    heartRateHash: heartRateHash, samples: workout.heartRate.count, points: summary.pointCount, version: version, now: now)
                try recountSummary(of: original.id, as: columns.counted(original.id, owner: owner), heartRate: workout.heartRate)
                return ImportReply(
                    id: original.id, result: .replacedDuplicate, routeVersion: version, duplicateOf: original.id,
                    duplicateFile: original.fileName, reason: more)
            }
            let id = try freeID(for: identity)
            let anchor = nextAnchor()
            var names = ["id", "owner", "source", "source_id", "route_version", "route_hash", "hr_hash", "hr_samples", "point_count", "anchor"]
            var values: [(any DatabaseValueConvertible)?] = [
                id.description, owner, workout.source.rawValue, identity.sourceID, 1, routeHash, heartRateHash, workout.heartRate.count,
                summary.pointCount, anchor,
            ]
            names += WorkoutColumns.names
            values += columns.values
            try db.execute(
                sql: "INSERT INTO workout (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(values))
            try db.cachedStatement(sql: "INSERT INTO series (workout_id, route, heart_rate) VALUES (?, ?, ?)").execute(
                arguments: [id.description, Data(route), Data(heartRate)])
            try db.cachedStatement(sql: "DELETE FROM deleted_workout WHERE id = ?").execute(arguments: [id.description])
            // A new row counted nowhere before (a deletion took its id out of the summaries).
            if countsSummaries { try countSummary(of: id, as: columns.counted(id, owner: owner), heartRate: workout.heartRate, fromRebuild: false) }
            return ImportReply(id: id, result: .imported, routeVersion: 1)
        }

        let id = stored.id
        let sameFile = workout.file != nil && stored.fileSHA256 == workout.file?.sha256
        if sameFile { columns.keepOriginal(stored.originalKept) }
        // The same file read again (by a better reader) is authoritative: everything it holds is
        // in its bytes. Not so an Apple Health export, whose routes are other files that may be
        // missing this time.
        let authoritative = sameFile && workout.file?.format != "apple-health"
        let changed = stored.routeHash != routeHash || stored.heartRateHash != heartRateHash
        if !changed {
            guard adopted || !columns.matches(stored.row) else {
                return ImportReply(id: id, result: .unchanged, routeVersion: stored.routeVersion)
            }
            let anchor = nextAnchor()
            try update(id, columns: columns, extra: ["source_id": identity.sourceID, "anchor": anchor])
            try recountSummary(of: id, as: columns.counted(id, owner: owner), heartRate: workout.heartRate)
            return ImportReply(id: id, result: .refreshed, routeVersion: stored.routeVersion)
        }

        if !authoritative,
            let lack = Self.lack(
                points: summary.pointCount, samples: workout.heartRate.count, storedPoints: stored.pointCount, storedSamples: stored.heartRateSamples)
        {
            return ImportReply(id: id, result: .keptRicher, routeVersion: stored.routeVersion, reason: lack)
        }

        if let previous = stored.fileSHA256, !sameFile { replacedFile(previous) }
        let version = stored.routeVersion + 1
        try replace(
            id, identity: identity, columns: columns, route: route, heartRate: heartRate, routeHash: routeHash,
            heartRateHash: heartRateHash, samples: workout.heartRate.count, points: summary.pointCount, version: version, now: now)
        try recountSummary(of: id, as: columns.counted(id, owner: owner), heartRate: workout.heartRate)
        return ImportReply(id: id, result: .updated, routeVersion: version)
    }

    /// Replaces a stored workout's copy: its identity, figures, file and series; a new route
    /// version, and every picture `pending` again.
    private mutating func replace(
        _ id: WorkoutID, identity: WorkoutIdentity, columns: WorkoutColumns, route: [UInt8], heartRate: [UInt8], routeHash: String,
        heartRateHash: String, samples: Int, points: Int, version: Int, now: Date
    ) throws {
        let anchor = nextAnchor()
        try update(
            id, columns: columns,
            extra: [
                "source": identity.source.rawValue, "source_id": identity.sourceID, "route_version": version, "route_hash": routeHash,
                "hr_hash": heartRateHash, "hr_samples": samples, "point_count": points, "anchor": anchor,
            ])
        try db.execute(
            sql: "UPDATE series SET route = ?, heart_rate = ? WHERE workout_id = ?",
            arguments: [Data(route), Data(heartRate), id.description])
        // The new anchor makes a worker's late report on the old inputs stale (see LeaseTable.Lease.anchor).
        try db.execute(
            sql: """
                UPDATE job SET status = 'pending', reason = NULL, attempts = 0, not_before = NULL, updated_at = ?, anchor = ?
                WHERE workout_id = ?
                """,
            arguments: [now.timeIntervalSince1970, anchor, id.description])
        try movePictures(of: id, now: now, anchor: anchor)
    }

    /// What a duplicate has clearly more than the stored copy of the same activity (heart rate
    /// where the stored copy has none, or at least twice its points, and less of nothing), or
    /// `nil`. Small differences (a TCX file repeats a point at each lap boundary) do not count.
    static func clearlyRicher(points: Int, samples: Int, storedPoints: Int, storedSamples: Int) -> String? {
        guard lack(points: points, samples: samples, storedPoints: storedPoints, storedSamples: storedSamples) == nil else { return nil }
        if samples > 0 && storedSamples == 0 { return "this copy has heart rate (\(samples) samples), the stored one none" }
        if points >= 2 * max(1, storedPoints) { return "this copy has \(points) points, the stored one \(storedPoints)" }
        return nil
    }

    /// What a copy lacks next to the stored one, or `nil` when it has at least as much of
    /// everything (points and heart-rate samples).
    static func lack(points: Int, samples: Int, storedPoints: Int, storedSamples: Int) -> String? {
        var missing: [String] = []
        if samples < storedSamples {
            missing.append(
                samples == 0 ? "no heart rate (stored: \(storedSamples) samples)" : "\(samples) heart-rate samples (stored: \(storedSamples))")
        }
        if points < storedPoints { missing.append("\(points) points (stored: \(storedPoints))") }
        return missing.isEmpty ? nil : "this copy has " + missing.joined(separator: " and ")
    }

    /// What an import compares of a stored workout, and its row (``WorkoutColumns/matches(_:)``).
    private struct Stored {
        var id: WorkoutID
        var routeVersion: Int
        var routeHash: String
        var heartRateHash: String
        var pointCount: Int
        var heartRateSamples: Int
        var fileName: String?
        var fileSHA256: String?
        var originalKept: Bool
        var row: Row

        /// The columns ``init(_:)`` reads, in its order, then those an import writes.
        static let columns =
            "id, route_version, route_hash, hr_hash, point_count, hr_samples, file_name, file_sha256, original_kept, "
            + WorkoutColumns.names.joined(separator: ", ")
        /// The position of the first column after ``columns``.
        static let columnCount = 9 + WorkoutColumns.names.count

        init(_ row: Row) throws(IndexError) {
            let decoder = RowDecoder(row, table: "workout")
            id = try decoder.workoutID(0, "id")
            routeVersion = try decoder.value(1, "route_version")
            routeHash = try decoder.value(2, "route_hash")
            heartRateHash = try decoder.value(3, "hr_hash")
            pointCount = try decoder.value(4, "point_count")
            heartRateSamples = try decoder.value(5, "hr_samples")
            fileName = try decoder.optionalValue(6, "file_name")
            fileSHA256 = try decoder.optionalValue(7, "file_sha256")
            originalKept = try decoder.value(8, "original_kept")
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
    private func duplicate(of route: Route, start: Date?, owner: String) throws -> Stored? {
        guard let start, !route.isEmpty else { return nil }
        let candidates = try Row.fetchAll(
            db,
            sql: """
                SELECT \(Stored.columns), s.route AS stored_route FROM workout w JOIN series s ON s.workout_id = w.id
                WHERE w.start_at > ? AND w.start_at < ? AND w.point_count > 0 AND w.owner = ?
                ORDER BY abs(w.start_at - ?), w.id
                """,
            arguments: [
                start.timeIntervalSince1970 - Self.duplicateWindow, start.timeIntervalSince1970 + Self.duplicateWindow, owner,
                start.timeIntervalSince1970,
            ])
        for row in candidates {
            let candidate = try Stored(row)
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

    /// The id derived from `identity`, unless a workout already has it (a richer copy from another
    /// file took that workout's place, and `allowDuplicates` now stores this file's copy apart):
    /// then an id derived from the identity marked once more, so that it is still the same in any
    /// index that saw the same imports.
    private func freeID(for identity: WorkoutIdentity) throws -> WorkoutID {
        var candidate = identity
        for _ in 0..<8 {
            let id = candidate.workoutID
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM workout WHERE id = ?", arguments: [id.description]) != nil else { return id }
            candidate.sourceID += "\u{0}again"
        }
        throw IndexError(.refused, "no free id for \(identity.source.rawValue) \(identity.sourceID)")
    }

    /// Seconds: two workouts starting closer than this (and overlapping) are one activity.
    static let duplicateWindow = 60.0

    private func update(_ id: WorkoutID, columns: WorkoutColumns, extra: [String: (any DatabaseValueConvertible)?]) throws {
        let extraNames = extra.keys.sorted()
        let names = WorkoutColumns.names + extraNames
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

/// The workout columns an import writes besides identity, series and versions.
private struct WorkoutColumns {
    static let names = [
        "activity", "name", "start_at", "end_at", "tz_offset", "distance", "duration", "elevation_gain", "hr_avg", "hr_max",
        "calories", "device_source", "device_figures", "file_name", "file_size", "file_sha256", "file_format", "reader_version",
        "position_in_file", "tz_name", "tz_source", "original_kept",
    ]
    var values: [(any DatabaseValueConvertible)?]
    private let activity: ActivityType
    private let summary: WorkoutSummary
    private let deviceFigures: [String]?
    private let timeZone: String?

    init(workout: ImportedWorkout, summary: WorkoutSummary, device: DeviceSummary?, originalKept: Bool) {
        activity = workout.activity
        self.summary = summary
        deviceFigures = device?.figures
        timeZone = workout.timeZone
        let file = workout.file
        values = [
            workout.activity.rawValue, workout.name, summary.start?.timeIntervalSince1970, summary.end?.timeIntervalSince1970,
            workout.timeZoneOffset, summary.distance, summary.duration, summary.elevationGain, summary.heartRateAverage,
            summary.heartRateMax, summary.calories, device?.source, device.map { $0.figures.joined(separator: ",") }, file?.name,
            file?.size, file?.sha256, file?.format, file?.readerVersion, workout.positionInFile, workout.timeZone,
            workout.timeZoneSource?.rawValue, originalKept && file != nil,
        ]
    }

    /// The workout `id` of `owner` as these columns store it, as far as summaries read it
    /// (``IndexTransaction/countSummary(of:as:heartRate:fromRebuild:)``: activity, times, zone and
    /// figures), so that an import counts it without reading its row back. Versions, hashes and
    /// file are not filled in.
    func counted(_ id: WorkoutID, owner: String) -> WorkoutRecord {
        var record = WorkoutRecord(
            id: id, owner: owner, source: .gpx, sourceID: "", activity: activity, name: nil, summary: summary, timeZoneOffset: nil,
            routeVersion: 0, routeHash: "", heartRateHash: "", anchor: 0)
        record.deviceFigures = deviceFigures
        record.timeZone = timeZone
        return record
    }

    /// The original stays kept when this import did not send it again.
    mutating func keepOriginal(_ stored: Bool) {
        if stored { values[values.count - 1] = true }
    }

    /// Whether the stored row already holds these values.
    func matches(_ row: Row) -> Bool {
        zip(Self.names, values).allSatisfy { name, value in
            (row[name] as DatabaseValue) == (value?.databaseValue ?? .null)
        }
    }
}
