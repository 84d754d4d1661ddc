import Foundation
public import WorkFeedModel
import WorkFeedPlaces

// The rules of docs/import.md ("Identity and re-import"), written once for every index: what an
// import does with a workout (``ImportStep``), decided from what the index holds. Each backend
// looks up what the rules ask for and stores what they decide.

/// A workout about to be imported, with everything its rules and its rows are made of, worked out
/// once.
public struct PreparedImport: Sendable {
    public let identity: WorkoutIdentity
    /// The workout as stored: a heart-rate reading of 0 is no reading (a strap not worn, an app
    /// without a sensor), so a workout whose readings are all 0 has no heart rate and no heatmap.
    public let workout: ImportedWorkout
    public let route: [UInt8]
    public let heartRate: [UInt8]
    public let routeHash: String
    public let heartRateHash: String
    /// The box of the route as stored (decoded from ``route``), which says which privacy zones
    /// can change its pictures.
    public let routeBounds: RouteBounds?
    /// The populated place the route starts in (``StartPlace``), from the route as stored.
    public let place: String?
    /// The figures as the feed shows them: the track's, with the device's where it has them.
    public let summary: WorkoutSummary
    public let device: DeviceSummary?

    /// - Throws: ``IndexError`` (`refused`) for a workout with neither a source id nor a file.
    public init(_ imported: ImportedWorkout, owner: String) throws(IndexError) {
        guard let identity = WorkoutIdentity(of: imported, owner: owner) else {
            throw IndexError(.refused, "\(imported.origin): the workout has neither a source id nor a file hash to identify it")
        }
        var workout = imported
        if workout.heartRate.contains(where: { !($0.bpm > 0) }) { workout.heartRate.removeAll { !($0.bpm > 0) } }
        self.identity = identity
        self.workout = workout
        route = SeriesCodec.encode(workout.route)
        heartRate = SeriesCodec.encode(workout.heartRate)
        routeHash = SHA256.hex(route)
        heartRateHash = SHA256.hex(heartRate)
        routeBounds = RouteBounds(encodedRoute: route)
        place = StartPlace.label(encodedRoute: route)
        let track = WorkoutSummary(route: workout.route, heartRate: workout.heartRate, start: workout.start, end: workout.end)
        device = workout.device?.shown(trackElevationGain: track.elevationGain)
        summary = track.applying(device)
    }

    /// What its share card shows, as its row will hold it (``WorkoutFields``' columns of
    /// ``WorkoutFigures/columnNames``).
    public var figures: WorkoutFigures {
        WorkoutFigures(
            name: workout.name, start: summary.start, end: summary.end, timeZoneOffset: workout.timeZoneOffset, distance: summary.distance,
            duration: summary.duration, deviceFigures: device?.figures, elevationGain: summary.elevationGain,
            heartRateAverage: summary.heartRateAverage, place: place)
    }

    /// Before files were remembered, a workout without a source id was identified by the hash of
    /// its series: the same file, read the same way, finds it under this identity.
    public var seriesIdentity: WorkoutIdentity? {
        guard workout.sourceID == nil else { return nil }
        return WorkoutIdentity(owner: identity.owner, source: workout.source, sourceID: "sha256:" + SHA256.hex(route + heartRate))
    }

    /// The stored workout of this identity, else (`adopted`) of its ``seriesIdentity``.
    public func lookUp<Stored>(_ find: (WorkoutIdentity) throws -> Stored?) rethrows -> (stored: Stored?, adopted: Bool) {
        if let stored = try find(identity) { return (stored, false) }
        guard let older = seriesIdentity, let stored = try find(older) else { return (nil, false) }
        return (stored, true)
    }

    /// The stored columns of this workout besides identity, series and versions; the original
    /// stays kept when the stored copy came from this very file and this import did not send it
    /// again.
    public func fields(originalKept: Bool, stored: StoredWorkout?) -> WorkoutFields {
        var fields = WorkoutFields(
            workout: workout, summary: summary, device: device, routeBounds: routeBounds, place: place, originalKept: originalKept)
        if let stored, isSameFile(as: stored), stored.originalKept { fields.keepOriginal() }
        return fields
    }

    /// The workout `id` of `owner` as its row will hold it, as far as summaries read it
    /// (activity, times, zone and figures), so that an import counts it without reading its row
    /// back. Versions, hashes and file are not filled in.
    public func counted(_ id: WorkoutID) -> WorkoutRecord {
        var record = WorkoutRecord(
            id: id, owner: identity.owner, source: .gpx, sourceID: "", activity: workout.activity, name: nil, summary: summary,
            timeZoneOffset: nil, routeVersion: 0, routeHash: "", heartRateHash: "", anchor: 0)
        record.deviceFigures = device?.figures
        record.timeZone = workout.timeZone
        return record
    }

    /// What this import does, given the stored workout of its identity (or of its series
    /// identity, `adopted`), and what it would duplicate.
    /// - Parameters:
    ///   - unchangedFields: whether the stored row already holds these fields (asked only of a
    ///     stored workout with the same series).
    ///   - duplicate: the owner's stored workout that is the same activity (asked only of a new
    ///     workout, unless duplicates are allowed): ``duplicateWindow`` and ``RouteOverlap``.
    public func step(
        stored: StoredWorkout?, adopted: Bool, allowDuplicates: Bool, unchangedFields: (StoredWorkout) throws -> Bool,
        duplicate: () throws -> StoredWorkout?
    ) rethrows -> ImportStep {
        guard let stored else {
            guard !allowDuplicates, let original = try duplicate() else { return .insert }
            guard
                let more = Self.clearlyRicher(
                    points: summary.pointCount, samples: workout.heartRate.count, storedPoints: original.pointCount,
                    storedSamples: original.heartRateSamples)
            else { return .duplicate(original) }
            // This copy of the activity has clearly more: it takes the stored copy's place, under
            // the same id (the feed keeps its row), with the new identity, so that either file
            // imported again finds it.
            return .replaceDuplicate(original, reason: more)
        }
        let sameFile = workout.file != nil && stored.fileSHA256 == workout.file?.sha256
        if stored.routeHash == routeHash && stored.heartRateHash == heartRateHash {
            return try !adopted && unchangedFields(stored) ? .unchanged(stored) : .refresh(stored)
        }
        // The same file read again (by a better reader) is authoritative: everything it holds is
        // in its bytes. Not so an Apple Health export, whose routes are other files that may be
        // missing this time.
        let authoritative = sameFile && workout.file?.format != "apple-health"
        if !authoritative,
            let lack = Self.lack(
                points: summary.pointCount, samples: workout.heartRate.count, storedPoints: stored.pointCount, storedSamples: stored.heartRateSamples)
        {
            return .keptRicher(stored, reason: lack)
        }
        return .update(stored)
    }

    /// Whether the stored workout came from this very file (its original then stays kept when
    /// this import did not send it again).
    public func isSameFile(as stored: StoredWorkout) -> Bool {
        workout.file != nil && stored.fileSHA256 == workout.file?.sha256
    }

    /// The file whose copy this step replaces with another file's, if any (its original may be
    /// kept no more).
    public func replacedFile(by step: ImportStep) -> String? {
        switch step {
        case .replaceDuplicate(let stored, _), .update(let stored):
            guard let previous = stored.fileSHA256, previous != workout.file?.sha256 else { return nil }
            return previous
        case .insert, .duplicate, .unchanged, .refresh, .keptRicher:
            return nil
        }
    }

    /// The reply to an import that took `step`; `id` is the new workout's for ``ImportStep/insert``.
    public func reply(_ step: ImportStep, insertedAs id: WorkoutID) -> ImportReply {
        switch step {
        case .insert:
            return ImportReply(id: id, result: .imported, routeVersion: 1)
        case .duplicate(let original):
            return ImportReply(
                id: identity.workoutID, result: .duplicate, routeVersion: 0, duplicateOf: original.id, duplicateFile: original.fileName)
        case .replaceDuplicate(let original, let more):
            return ImportReply(
                id: original.id, result: .replacedDuplicate, routeVersion: original.routeVersion + 1, duplicateOf: original.id,
                duplicateFile: original.fileName, reason: more)
        case .unchanged(let stored):
            return ImportReply(id: stored.id, result: .unchanged, routeVersion: stored.routeVersion)
        case .refresh(let stored):
            return ImportReply(id: stored.id, result: .refreshed, routeVersion: stored.routeVersion)
        case .keptRicher(let stored, let lack):
            return ImportReply(id: stored.id, result: .keptRicher, routeVersion: stored.routeVersion, reason: lack)
        case .update(let stored):
            return ImportReply(id: stored.id, result: .updated, routeVersion: stored.routeVersion + 1)
        }
    }

    /// Seconds: two workouts starting closer than this (and overlapping) are one activity.
    public static let duplicateWindow = 60.0

    /// The id derived from `identity`, unless a workout already has it (a richer copy from another
    /// file took that workout's place, and `allowDuplicates` now stores this file's copy apart):
    /// then an id derived from the identity marked once more, so that it is still the same in any
    /// index that saw the same imports.
    public func freeID(taken: (WorkoutID) throws -> Bool) throws -> WorkoutID {
        var candidate = identity
        for _ in 0..<8 {
            let id = candidate.workoutID
            guard try taken(id) else { return id }
            candidate.sourceID += "\u{0}again"
        }
        throw IndexError(.refused, "no free id for \(identity.source.rawValue) \(identity.sourceID)")
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
}

/// What an import does (``PreparedImport/step(stored:adopted:allowDuplicates:unchangedFields:duplicate:)``).
public enum ImportStep: Sendable {
    /// A new workout, stored under a free id.
    case insert
    /// The same activity as a stored copy from another file, with nothing more: nothing stored.
    case duplicate(StoredWorkout)
    /// The same activity as a stored copy, clearly richer: it takes that copy's place and id.
    case replaceDuplicate(StoredWorkout, reason: String)
    /// Known, the same series and fields: nothing changes.
    case unchanged(StoredWorkout)
    /// Known, the same series: its fields (and identity, when adopted) are written again, with
    /// no new route version.
    case refresh(StoredWorkout)
    /// Known, another series with less in it than the stored one: the stored copy stays.
    case keptRicher(StoredWorkout, reason: String)
    /// Known, another series: the stored copy is replaced, the route version goes up and every
    /// picture becomes `pending` again.
    case update(StoredWorkout)
}

/// What an import compares of a stored workout.
public struct StoredWorkout: Sendable, Hashable {
    public var id: WorkoutID
    public var routeVersion: Int
    public var routeHash: String
    public var heartRateHash: String
    public var pointCount: Int
    public var heartRateSamples: Int
    public var fileName: String?
    public var fileSHA256: String?
    public var originalKept: Bool

    public init(
        id: WorkoutID, routeVersion: Int, routeHash: String, heartRateHash: String, pointCount: Int, heartRateSamples: Int, fileName: String?,
        fileSHA256: String?, originalKept: Bool
    ) {
        self.id = id
        self.routeVersion = routeVersion
        self.routeHash = routeHash
        self.heartRateHash = heartRateHash
        self.pointCount = pointCount
        self.heartRateSamples = heartRateSamples
        self.fileName = fileName
        self.fileSHA256 = fileSHA256
        self.originalKept = originalKept
    }
}

/// The workout columns an import writes besides identity, series and versions: their names and
/// values in one list, which every backend writes and compares.
public struct WorkoutFields: Sendable, Equatable {
    public static let names =
        [
            "activity", "name", "start_at", "end_at", "tz_offset", "distance", "duration", "elevation_gain", "hr_avg", "hr_max",
            "calories", "device_source", "device_figures", "file_name", "file_size", "file_sha256", "file_format", "reader_version",
            "position_in_file", "tz_name", "tz_source", "place",
        ] + RouteBounds.columnNames + ["original_kept"]

    /// In the order of ``names``.
    public private(set) var values: [StoredValue]

    init(
        workout: ImportedWorkout, summary: WorkoutSummary, device: DeviceSummary?, routeBounds: RouteBounds?, place: String?, originalKept: Bool
    ) {
        func text(_ value: String?) -> StoredValue { value.map(StoredValue.text) ?? .null }
        func real(_ value: Double?) -> StoredValue { value.map(StoredValue.real) ?? .null }
        func integer(_ value: Int?) -> StoredValue { value.map { .integer(Int64($0)) } ?? .null }
        let file = workout.file
        values = [
            .text(workout.activity.rawValue), text(workout.name), real(summary.start?.timeIntervalSince1970),
            real(summary.end?.timeIntervalSince1970), integer(workout.timeZoneOffset), .real(summary.distance), real(summary.duration),
            real(summary.elevationGain), real(summary.heartRateAverage), real(summary.heartRateMax), real(summary.calories),
            text(device?.source), text(device.map { $0.figures.joined(separator: ",") }), text(file?.name),
            (file?.size).map(StoredValue.integer) ?? .null,
            text(file?.sha256), text(file?.format), integer(file?.readerVersion), .integer(Int64(workout.positionInFile)),
            text(workout.timeZone), text(workout.timeZoneSource?.rawValue), text(place),
        ]
        values += routeBounds.map { $0.stored.map(StoredValue.real) } ?? Array(repeating: .null, count: RouteBounds.columnNames.count)
        values.append(.bool(originalKept && file != nil))
    }

    /// The original stays kept (``WorkoutFields/names``' last).
    mutating func keepOriginal() { values[values.count - 1] = .bool(true) }
}
