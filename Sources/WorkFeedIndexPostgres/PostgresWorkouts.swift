import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

/// Reads of the workouts themselves (``IndexReading``'s first group).
public enum PostgresWorkouts {
    /// Workouts in the index, or an owner's.
    public static func count(owner: String?, in session: PostgresSession) throws(IndexError) -> Int {
        let rows =
            if let owner {
                try session.query("SELECT count(*)::bigint FROM workout WHERE owner = \(owner)", "counting the workouts of \(owner)")
            } else {
                try session.query("SELECT count(*)::bigint FROM workout", "counting the workouts")
            }
        return try rows.firstDecoded("the workouts") { try $0.decode(Int.self) } ?? 0
    }

    /// Every workout id of an owner, in id order.
    public static func ids(owner: String, in session: PostgresSession) throws(IndexError) -> [WorkoutID] {
        try session.query("SELECT id FROM workout WHERE owner = \(owner) ORDER BY id", "listing the workouts of \(owner)")
            .decoded("the workouts of \(owner)") { WorkoutID(try $0.decode(UUID.self)) }
    }

    /// Workout ids starting with a prefix of hex digits (hyphens optional, any case), in id
    /// order: a range of ids, the prefix filled out with 0s below and fs above. A prefix that is
    /// not hex digits, or is longer than an id, matches nothing.
    public static func ids(withPrefix prefix: String, limit: Int, in session: PostgresSession) throws(IndexError) -> [WorkoutID] {
        let hex = prefix.lowercased().filter { $0 != "-" }
        guard hex.count <= 32, hex.allSatisfy(\.isHexDigit) else { return [] }
        func id(_ filler: Character) -> UUID? {
            let digits = Array(hex + String(repeating: filler, count: 32 - hex.count))
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }
            return UUID(uuidString: parts.joined(separator: "-"))
        }
        guard let low = id("0"), let high = id("f") else { return [] }
        return try session.query(
            "SELECT id FROM workout WHERE id >= \(low) AND id <= \(high) ORDER BY id LIMIT \(limit)", "finding workouts by the prefix \(prefix)"
        ).decoded("the workouts by the prefix \(prefix)") { WorkoutID(try $0.decode(UUID.self)) }
    }

    /// The files (SHA-256) these workouts came from.
    public static func fileHashes(of ids: [WorkoutID], in session: PostgresSession) throws(IndexError) -> Set<String> {
        Set(
            try session.query(
                "SELECT DISTINCT file_sha256 FROM workout WHERE id = ANY(\(ids.map(\.uuid))) AND file_sha256 IS NOT NULL",
                "reading the files of \(ids.count) workouts"
            ).decoded("the files of \(ids.count) workouts") { try $0.decode(String.self) })
    }

    /// Of the files (SHA-256) of these workouts, those whose original one of them keeps.
    public static func keptOriginals(of ids: [WorkoutID], in session: PostgresSession) throws(IndexError) -> Set<String> {
        Set(
            try session.query(
                "SELECT DISTINCT file_sha256 FROM workout WHERE id = ANY(\(ids.map(\.uuid))) AND file_sha256 IS NOT NULL AND original_kept",
                "reading the kept originals of \(ids.count) workouts"
            ).decoded("the kept originals of \(ids.count) workouts") { try $0.decode(String.self) })
    }

    /// Of these files (SHA-256), those no workout refers to any more, in order.
    public static func unreferencedFiles(_ hashes: Set<String>, in session: PostgresSession) throws(IndexError) -> [String] {
        try session.query(
            """
            SELECT h FROM unnest(\(hashes.sorted())::text[]) AS h WHERE NOT EXISTS (SELECT 1 FROM workout WHERE file_sha256 = h) ORDER BY h
            """, "finding the files no workout refers to"
        ).decoded("the files no workout refers to") { try $0.decode(String.self) }
    }

    /// A workout, read by the index's own decoder (``IndexReader/workoutRecord(_:)``).
    public static func record(_ id: WorkoutID, in session: PostgresSession) throws(IndexError) -> WorkoutRecord? {
        try session.query("SELECT \(unescaped: IndexReader.workoutColumns) FROM workout WHERE id = \(id.uuid)", "reading workout \(id)")
            .firstDecoded("workout \(id)") { row in try IndexReader.workoutRecord(row.storedValues(names: IndexReader.workoutColumnNames)) }
    }

    /// An owner's settings, read by the index's own decoder (``IndexReader/ownerSettings(_:)``); empty when they set none.
    public static func settings(owner: String, in session: PostgresSession) throws(IndexError) -> OwnerSettings {
        try session.query(
            "SELECT \(unescaped: IndexReader.settingsColumns) FROM owner_settings WHERE owner = \(owner)", "reading the settings of \(owner)"
        ).firstDecoded("the settings of \(owner)") { row in
            try IndexReader.ownerSettings(row.storedValues(names: PostgresTransaction.names(IndexReader.settingsColumns)))
        } ?? OwnerSettings()
    }
}
