import PostgresNIO
public import WorkFeedIndex

/// The PostgreSQL index's schema and its migrations (docs/postgres-index.md, "The schema").
///
/// Each coordinator brings the schema up to date when it opens the index, in one transaction
/// behind a transaction-scoped advisory lock: coordinators that start together wait for each
/// other, the first migrates, the others find nothing left to do. PostgreSQL's DDL is
/// transactional, so a migration that fails leaves the schema as it was.
public enum PostgresSchema {
    /// The migrations this build knows, in order: version i + 1 is `migrations[i]`.
    static let migrations: [Migration] = [
        Migration("pg1: the index of SQLite v14, leases, leader, anchors by transaction", pg1),
        Migration("pg2: the job counts' update trigger skips statements that change nothing counted", pg2),
        Migration("pg3: the job counts added by a PL/pgSQL function over arrays", pg3),
        Migration("pg4: a lease's key in no index, room on the job table's pages for HOT updates", pg4),
        Migration("pg5: route boxes, so that a privacy zone re-keys only the pictures it can change", pg5, then: backfillPG5),
        Migration(
            "pg6: removals that wait, kept until the picture store has done them",
            // As SQLite's v17 (docs/operations.md, "Removals that wait").
            ["CREATE TABLE removal (name text PRIMARY KEY, since double precision NOT NULL)"]),
        Migration(
            "pg7: replies kept for idempotency keys",
            // As SQLite's v18 (docs/gateway.md, "Idempotency-Key").
            [
                """
                CREATE TABLE kept_reply (
                    owner text, key text, digest text NOT NULL, reply bytea NOT NULL, at double precision NOT NULL,
                    PRIMARY KEY (owner, key))
                """,
                "CREATE INDEX kept_reply_at ON kept_reply (at)",
            ]),
        Migration("pg8: start places, the populated place each workout started in", pg8, then: backfillPG8),
        Migration(
            "pg9: card figures, the figures an owner's share cards show",
            // As SQLite's v20 (OwnerSettings.cardFigures): names comma-separated, "" for none.
            ["ALTER TABLE owner_settings ADD COLUMN card_figures text"]),
    ]

    /// One version of the schema: its statements, then what it works out in Swift (a value
    /// SQL cannot compute from what is stored, such as a route's box), in the same transaction.
    struct Migration: Sendable {
        let name: String
        let statements: [String]
        let then: (@Sendable (PostgresSession) throws(IndexError) -> Void)?

        init(_ name: String, _ statements: [String], then: (@Sendable (PostgresSession) throws(IndexError) -> Void)? = nil) {
            self.name = name
            self.statements = statements
            self.then = then
        }
    }

    /// The version this build brings an index to.
    public static var currentVersion: Int { migrations.count }

    /// The advisory lock every migration holds (`hashtextextended('workfeed.index.migrations', 0)`).
    static let lockKey = "workfeed.index.migrations"

    /// Brings the schema of `session`'s database up to date.
    /// - Parameter appliedBy: who migrates (host, pid, version), as `schema_migration` keeps it.
    /// - Returns: the version found and the version now.
    /// - Throws: ``IndexError/Code/notAnIndex`` for a database that holds tables but no WorkFeed
    ///   schema, ``IndexError/Code/migration`` for one migrated by a newer version, or when a
    ///   migration fails (nothing of it kept).
    @discardableResult
    public static func migrate(_ session: PostgresSession, appliedBy: String) throws(IndexError) -> (from: Int, to: Int) {
        try session.transaction("bringing the index's schema up to date") { () throws -> (from: Int, to: Int) in
            try session.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))", "waiting for other coordinators' migrations")
            let found = try version(session)
            guard found <= currentVersion else {
                throw IndexError(
                    .migration,
                    "the index at \(session.location) has schema version \(found), newer than this coordinator's \(currentVersion): "
                        + "a newer WorkFeed migrated it; run that version (docs/operations.md, \"Upgrades\")")
            }
            for version in found..<currentVersion {
                let migration = migrations[version]
                do {
                    for (number, statement) in migration.statements.enumerated() {
                        try session.query(PostgresQuery(unsafeSQL: statement), "migration \(version + 1), statement \(number + 1)")
                    }
                    try migration.then?(session)
                } catch {
                    throw IndexError(
                        .migration, "the index at \(session.location) could not be migrated to version \(version + 1) (\(migration.name))",
                        cause: error)
                }
                try session.query(
                    "INSERT INTO schema_migration (version, name, applied_by) VALUES (\(version + 1), \(migration.name), \(appliedBy))",
                    "recording migration \(version + 1)")
            }
            return (found, currentVersion)
        }
    }

    /// The schema version of the database: 0 when it is empty.
    static func version(_ session: PostgresSession) throws(IndexError) -> Int {
        let tables = try session.query(
            """
            SELECT count(*)::bigint, count(*) FILTER (WHERE c.relname = 'schema_migration')::bigint
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
            """, "reading the index's schema")
        guard let (all, migrationTables) = try tables.firstDecoded("pg_class", { try $0.decode((Int64, Int64).self) }) else {
            throw IndexError(.failed, "reading the index's schema: no row")
        }
        if migrationTables == 0 {
            guard all == 0 else {
                throw IndexError(
                    .notAnIndex,
                    "the database of \(session.location) holds \(all) tables or sequences but no WorkFeed index (no schema_migration): "
                        + "give WorkFeed a database of its own")
            }
            return 0
        }
        let versions = try session.query("SELECT coalesce(max(version), 0)::bigint FROM schema_migration", "reading the schema version")
        return Int(try versions.firstDecoded("schema_migration", { try $0.decode(Int64.self) }) ?? 0)
    }
}
