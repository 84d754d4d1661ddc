public import Foundation
import PostgresNIO
public import WorkFeedIndex

/// Moves a SQLite index into an empty PostgreSQL database (`workctl index copy`;
/// docs/postgres-index.md, "Moving over"): every workout and series, job and status, picture key,
/// tombstone, zone, setting, withdrawn key and summary, the privacy secret, and the anchors, so
/// that the same feed, statuses, summaries and CHANGES come back from both, and a client that
/// read CHANGES from the SQLite index goes on from its last anchor.
///
/// Column by column, by name: each SQLite column must have a place in the PostgreSQL table, and
/// each value is converted to the column's type there (text to `uuid`, 0/1 to `boolean`,
/// seconds to `timestamptz`) or refused, naming the table, the row and the column. One
/// transaction: a copy that fails leaves the database as it was.
public enum PostgresIndexCopy {
    /// What a copy moved: each table's rows, and the anchor CHANGES goes on from.
    public struct Copied: Sendable {
        public var rows: [(table: String, count: Int)] = []
        public var anchor: Int64 = 0
    }

    /// Rows in one `INSERT`: PostgreSQL takes at most 65,535 parameters a statement.
    static let rowsPerStatement = 500

    /// Copies `index` into the database of `session`, made an index first (migration `pg1`).
    /// - Parameter progress: called after each table with its name and the rows copied.
    /// - Throws: ``IndexError``: ``IndexError/Code/refused`` when the database already holds an
    ///   index's content, ``IndexError/Code/corruptRow`` for a value that has no place in
    ///   PostgreSQL (nothing is then kept), or what the server said.
    public static func copy(
        _ index: WorkoutIndex, to session: PostgresSession, appliedBy: String, progress: (String, Int) -> Void = { _, _ in }
    ) throws(IndexError) -> Copied {
        try PostgresSchema.migrate(session, appliedBy: appliedBy)
        let copied = try index.export { (export) throws(IndexError) -> Copied in
            try checkTables(export)
            return try session.transaction("copying the index", attempts: 1) { () throws(IndexError) -> Copied in
                // No coordinator writes while the copy runs (they would wait), and none may have written before.
                try session.query(
                    "LOCK TABLE meta, workout, job, deleted_workout, privacy_zone, owner_settings, summary_owner IN SHARE ROW EXCLUSIVE MODE",
                    "locking the tables to copy into")
                try refuseUnlessEmpty(session)
                var copied = Copied()
                for table in IndexExport.tables {
                    let count =
                        table == "meta" ? try copyMeta(export, into: session, anchor: &copied.anchor) : try copyTable(table, export, into: session)
                    copied.rows.append((table, count))
                    progress(table, count)
                }
                try finish(session, copied: &copied, highestZoneID: try export.highestIDEverGiven(in: "privacy_zone") ?? 0)
                return copied
            }
        }
        // The planner's statistics for the rows just written.
        try session.query("ANALYZE", "analyzing the copied tables")
        return copied
    }

    /// Every table of the SQLite index is one this copy knows: a newer index's table is refused,
    /// not left behind.
    static func checkTables(_ export: IndexExport) throws(IndexError) {
        let known = Set(IndexExport.tables).union(IndexExport.derivedTables)
        let unknown = try export.tableNames().filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw IndexError(
                .migration,
                "the index has tables this workctl cannot copy (\(unknown.joined(separator: ", "))): copy it with the workctl of the coordinator that wrote it"
            )
        }
    }

    /// The database must hold no index content yet: a copy never merges.
    static func refuseUnlessEmpty(_ session: PostgresSession) throws(IndexError) {
        let rows = try session.query(
            """
            SELECT (SELECT count(*) FROM workout), (SELECT count(*) FROM deleted_workout), (SELECT count(*) FROM privacy_zone),
                (SELECT count(*) FROM owner_settings), (SELECT count(*) FROM summary_owner), (SELECT count(*) FROM meta WHERE key <> 'anchor_base')
            """, "looking whether the database is empty")
        let counts = try rows.firstDecoded("the counts") { try $0.decode((Int, Int, Int, Int, Int, Int).self) } ?? (0, 0, 0, 0, 0, 0)
        guard counts == (0, 0, 0, 0, 0, 0) else {
            throw IndexError(
                .refused,
                "the database is not empty (\(counts.0) workouts, \(counts.1) deleted, \(counts.2) zones, \(counts.3) owners' settings, "
                    + "\(counts.4) owners' summaries, \(counts.5) kept values): copy into an empty database; nothing was copied")
        }
    }

    /// SQLite's `meta (key, value)`: the anchor becomes `anchor_base` (CHANGES goes on from it),
    /// numbers and bytes keep their keys.
    static func copyMeta(_ export: IndexExport, into session: PostgresSession, anchor: inout Int64) throws(IndexError) -> Int {
        var count = 0
        do {
            try export.rows(of: "meta", columns: ["key", "value"], batch: rowsPerStatement) { rows in
                for row in rows {
                    guard case .text(let key) = row[0] else { throw corrupt("meta", key: "\(row[0])", column: "key", "a key is text") }
                    switch row[1] {
                    case .integer(let number) where key == "anchor": anchor = number
                    case .integer(let number):
                        try session.query("INSERT INTO meta (key, number) VALUES (\(key), \(number))", "copying meta \(key)")
                    case .blob(let bytes):
                        try session.query("INSERT INTO meta (key, bytes) VALUES (\(key), \(ByteBuffer(bytes: bytes)))", "copying meta \(key)")
                    default:
                        throw corrupt("meta", key: key, column: "value", "PostgreSQL's meta keeps numbers and bytes, not \(describe(row[1]))")
                    }
                    count += 1
                }
            }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "copying meta failed", cause: error)
        }
        return count
    }

    /// A column of a PostgreSQL table, as `information_schema` describes it.
    struct Column {
        var name: String
        var type: String
        var nullable: Bool
        var hasDefault: Bool
    }

    static func columns(of table: String, in session: PostgresSession) throws(IndexError) -> [Column] {
        try session.query(
            """
            SELECT column_name::text, data_type::text, is_nullable = 'YES', column_default IS NOT NULL OR is_identity = 'YES'
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
            """, "reading the columns of \(table)"
        ).decoded("the columns of \(table)") { row in
            let (name, type, nullable, hasDefault) = try row.decode((String, String, Bool, Bool).self)
            return Column(name: name, type: type, nullable: nullable, hasDefault: hasDefault)
        }
    }

    /// One table, by column name, in statements of ``rowsPerStatement`` rows.
    static func copyTable(_ table: String, _ export: IndexExport, into session: PostgresSession) throws(IndexError) -> Int {
        let source = try export.columns(of: table)
        let target = Dictionary(try columns(of: table, in: session).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let homeless = source.filter { target[$0] == nil }
        guard homeless.isEmpty else {
            throw IndexError(
                .migration,
                "columns of the index's table \(table) have no place in PostgreSQL's (\(homeless.joined(separator: ", "))): "
                    + "copy it with the workctl of the coordinator that wrote it")
        }
        let missing = target.values.filter { !$0.nullable && !$0.hasDefault && !source.contains($0.name) }.map(\.name).sorted()
        guard missing.isEmpty else {
            throw IndexError(.migration, "PostgreSQL's table \(table) needs columns the index does not have (\(missing.joined(separator: ", ")))")
        }
        let columns = source.compactMap { target[$0] }
        let names = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
        var count = 0
        do {
            try export.rows(of: table, columns: source, batch: rowsPerStatement) { rows in
                var bindings = PostgresBindings(capacity: rows.count * columns.count)
                var tuples: [String] = []
                tuples.reserveCapacity(rows.count)
                for row in rows {
                    count += 1
                    var placeholders: [String] = []
                    for (offset, column) in columns.enumerated() {
                        try bind(row[offset], to: column, table: table, key: describe(row[0]), into: &bindings)
                        placeholders.append("$\(bindings.count)")
                    }
                    tuples.append("(\(placeholders.joined(separator: ", ")))")
                }
                try session.query(
                    PostgresQuery(unsafeSQL: "INSERT INTO \(table) (\(names)) VALUES \(tuples.joined(separator: ", "))", binds: bindings),
                    "copying \(rows.count) rows of \(table)")
            }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "copying \(table) failed", cause: error)
        }
        return count
    }

    /// A SQLite value bound for a PostgreSQL column of `column.type`, or refused.
    static func bind(_ value: StoredValue, to column: Column, table: String, key: String, into bindings: inout PostgresBindings) throws(IndexError) {
        func refused() -> IndexError {
            corrupt(table, key: key, column: column.name, "\(describe(value)) has no place in a column of type \(column.type)")
        }
        switch (value, column.type) {
        case (.null, _) where column.nullable: bindings.appendNull()
        // A tombstone written before workouts had owners: nobody's (seen, as in SQLite, only by
        // readers of every owner's changes).
        case (.null, "text") where table == "deleted_workout" && column.name == "owner": bindings.append("")
        case (.null, _):
            throw corrupt(table, key: key, column: column.name, "NULL in a column PostgreSQL requires")
        case (.text(let text), "uuid"):
            guard let uuid = UUID(uuidString: text) else { throw refused() }
            bindings.append(uuid)
        case (.text(let text), "text"): bindings.append(text)
        case (.integer(let number), "boolean") where number == 0 || number == 1: bindings.append(number == 1)
        case (.bool(let flag), "boolean"): bindings.append(flag)
        case (.integer(let number), "bigint"): bindings.append(number)
        case (.integer(let number), "integer"):
            guard let narrow = Int32(exactly: number) else { throw refused() }
            bindings.append(narrow)
        case (.integer(let number), "smallint"):
            guard let narrow = Int16(exactly: number) else { throw refused() }
            bindings.append(narrow)
        case (.integer(let number), "double precision"): bindings.append(Double(number))
        case (.real(let number), "double precision"): bindings.append(number)
        case (.real(let seconds), "timestamp with time zone") where seconds.isFinite:
            bindings.append(Date(timeIntervalSince1970: seconds))
        case (.integer(let seconds), "timestamp with time zone"): bindings.append(Date(timeIntervalSince1970: Double(seconds)))
        case (.blob(let bytes), "bytea"): bindings.append(ByteBuffer(bytes: bytes))
        default: throw refused()
        }
    }

    /// After the rows: identities go on after the copied ids (a zone's after the highest the
    /// SQLite index ever gave, `highestZoneID`: zone ids are never reused), every owner has its
    /// state row, the anchors go on after the copied ones, and each table holds what the index held.
    static func finish(_ session: PostgresSession, copied: inout Copied, highestZoneID: Int64) throws(IndexError) {
        for (table, highest) in [("job", Int64(0)), ("privacy_zone", highestZoneID)] {
            try session.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT setval(pg_get_serial_sequence('\(table)', 'id'), greatest(coalesce(max(id), 0), \(highest)) + 1, false) FROM \(table)
                        """),
                "moving the ids of \(table) past the copied ones")
        }
        try session.query(
            """
            INSERT INTO owner_state (owner)
            SELECT owner FROM workout UNION SELECT owner FROM privacy_zone UNION SELECT owner FROM owner_settings UNION SELECT owner FROM summary_owner
            ON CONFLICT (owner) DO NOTHING
            """, "giving every owner its state")
        // The highest anchor handed out, whether or not the counter says so.
        let highest =
            try session.query(
                """
                SELECT greatest(coalesce((SELECT max(anchor) FROM workout), 0), coalesce((SELECT max(anchor) FROM job), 0),
                    coalesce((SELECT max(anchor) FROM deleted_workout), 0))
                """, "reading the highest copied anchor"
            ).firstDecoded("the highest anchor") { try $0.decode(Int64.self) } ?? 0
        copied.anchor = max(copied.anchor, highest)
        try session.query("UPDATE meta SET number = \(copied.anchor) WHERE key = 'anchor_base'", "making anchors go on after the copied ones")
        for (table, count) in copied.rows where table != "meta" {
            let stored =
                try session.query(PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table)"), "counting the copied rows of \(table)")
                .firstDecoded("the count of \(table)") { try $0.decode(Int.self) } ?? 0
            guard stored == count else {
                throw IndexError(.failed, "the copy of \(table) holds \(stored) rows, not the index's \(count); nothing was copied")
            }
        }
    }

    static func corrupt(_ table: String, key: String, column: String, _ what: String) -> IndexError {
        IndexError(.corruptRow, "the index's table \(table), row \(key), column \(column): \(what); nothing was copied")
    }

    static func describe(_ value: StoredValue) -> String {
        switch value {
        case .null: "NULL"
        case .bool(let flag): "boolean \(flag)"
        case .integer(let number): "integer \(number)"
        case .real(let number): "real \(number)"
        case .text(let text): "text '\(text.prefix(60))'"
        case .blob(let bytes): "\(bytes.count) bytes"
        }
    }
}
