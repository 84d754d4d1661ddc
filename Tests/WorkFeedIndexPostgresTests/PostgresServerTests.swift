import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
import WorkFeedIndexContract
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedTesting

/// A database of its own on the shared test server, migrated, and sessions to it.
struct PostgresFixture {
    static let logger = Logger(label: "postgres-tests")
    let server: PostgresTestServer
    let database: String
    let location: PostgresIndexLocation

    /// - Parameter server: the server of the database; the one every test shares unless given.
    init(migrated: Bool = true, on server: PostgresTestServer? = nil) throws {
        self.server = try server ?? PostgresTestServer.shared.get()
        database = try self.server.createDatabase()
        location = try PostgresIndexLocation(url: self.server.socketURL(database: database))
        if migrated { try PostgresSchema.migrate(try session("migration"), appliedBy: "test") }
    }

    func session(_ name: String) throws(IndexError) -> PostgresSession {
        try PostgresSession.connect(to: location, name: name, logger: Self.logger)
    }

    /// `count` workouts of `owner`, each with one pending route job at `priority`, the jobs'
    /// ids in the workouts' order (oldest first). Each change takes an anchor of its own, as a
    /// writer's do: the k-th workout or job of its statement's transaction the k-th.
    static func addJobs(owner: String, count: Int, priority: Int = 0, in session: PostgresSession) throws {
        try session.query(
            """
            INSERT INTO workout (id, owner, source, source_id, activity, distance, point_count, route_version, route_hash, hr_hash, anchor)
            SELECT gen_random_uuid(), \(owner), 'test', \(owner) || '-' || lpad((n + (SELECT count(*) FROM workout WHERE owner = \(owner)))::text, 6, '0'),
                'running', 1000, 2, 1, 'r' || n, 'h' || n,
                workfeed_anchor(n::int)
            FROM generate_series(1, \(count)) n
            """, "adding workouts")
        try session.query(
            """
            INSERT INTO series (workout_id, route, heart_rate)
            SELECT w.id, '\\x0102'::bytea, '\\x03'::bytea FROM workout w LEFT JOIN series s ON s.workout_id = w.id
            WHERE w.owner = \(owner) AND s.workout_id IS NULL
            """, "adding series")
        try session.query(
            """
            INSERT INTO job (workout_id, owner, kind, theme, scale, status, priority, updated_at, anchor)
            SELECT w.id, w.owner, 'route', 'light', 1, 'pending', \(priority), now(),
                workfeed_anchor((row_number() OVER (ORDER BY w.source_id))::int)
            FROM workout w LEFT JOIN job j ON j.workout_id = w.id WHERE w.owner = \(owner) AND j.id IS NULL ORDER BY w.source_id
            """, "adding jobs")
        // As an import does: the owner's policy row, with the owner's first workout.
        try session.query("INSERT INTO owner_state (owner) VALUES (\(owner)) ON CONFLICT (owner) DO NOTHING", "adding the owner")
    }

    /// Runs `body` for each coordinator at once, each on a thread of its own with a session of
    /// its own; what each threw.
    /// A term as leader for `holder` (a minute long), for transactions that do periodic work
    /// (``PostgresTransaction/leadership``): a rebuild step is fenced off without one.
    func leading(as holder: String = "test") throws -> PostgresLeadership {
        let session = try session("\(holder) leading")
        defer { session.close() }
        var leadership = PostgresLeadership(termSeconds: 60)
        leadership.term = try PostgresLeader.takeOver(as: holder, termSeconds: 60, in: session)
        return leadership
    }

    func concurrently(_ coordinators: [String], _ body: @escaping @Sendable (String, PostgresSession) throws -> Void) -> [String] {
        let failures = Mutex<[String]>([])
        let all = DispatchGroup()
        // Each connects first, then all start at once: a session connected late (its functions
        // defined, on a loaded machine) would find the others' work done.
        let connected = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for coordinator in coordinators {
            all.enter()
            connected.enter()
            Thread.detachNewThread {
                defer { all.leave() }
                let connection = Result { try session(coordinator) }
                connected.leave()
                start.wait()
                do { try body(coordinator, try connection.get()) } catch { failures.withLock { $0.append("\(coordinator): \(error)") } }
            }
        }
        connected.wait()
        for _ in coordinators { start.signal() }
        all.wait()
        return failures.withLock { $0 }
    }

    /// What a worker's `generated` report does to the row, for these tests of the claim alone:
    /// the job generated, its lease ended.
    static func finish(_ claims: [PostgresLeases.Claim], in session: PostgresSession) throws {
        let leases = claims.map { Int64(bitPattern: $0.job.lease) }
        try session.query(
            """
            UPDATE job SET status = 'generated', lease_id = NULL, lease_coordinator = NULL, lease_worker = NULL, lease_anchor = NULL,
                lease_key = NULL, lease_deadline = NULL, lease_expires_at = NULL, attempts = attempts + 1
            WHERE lease_id = ANY(\(leases))
            """, "finishing jobs")
    }
}

@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresSchemaTests {
    /// Coordinators that start together on a new database migrate it once: the advisory lock
    /// makes the others wait, and they find it done.
    @Test func coordinatorsStartingTogetherMigrateOnce() throws {
        let fixture = try PostgresFixture(migrated: false)
        let results = Mutex<[Result<Int, IndexError>]>([])
        let all = DispatchGroup()
        for number in 0..<4 {
            all.enter()
            Thread.detachNewThread {
                defer { all.leave() }
                let result = Result { () throws(IndexError) -> Int in
                    let session = try fixture.session("coordinator-\(number)")
                    return try PostgresSchema.migrate(session, appliedBy: "coordinator-\(number)").from
                }
                results.withLock { $0.append(result) }
            }
        }
        all.wait()
        let found = try results.withLock { try $0.map { try $0.get() } }
        #expect(found.sorted() == [0] + Array(repeating: PostgresSchema.currentVersion, count: 3))
        let session = try fixture.session("check")
        let rows = try session.query("SELECT version, applied_by FROM schema_migration", "reading")
        #expect(rows.count == PostgresSchema.currentVersion)
        // Opened again: nothing to do.
        #expect(try PostgresSchema.migrate(session, appliedBy: "again") == (PostgresSchema.currentVersion, PostgresSchema.currentVersion))
    }

    /// pg5 fills in the boxes of the routes stored before it (docs/privacy.md, "Which pictures a
    /// zone changes"): the index as pg4 left it (no box columns) is migrated with its workouts.
    @Test func pg5FillsTheBoxesOfTheRoutesStoredBeforeIt() throws {
        let fixture = try PostgresFixture()
        let workouts = (0..<3).map { IndexStoreContract.workout("boxed-\($0)") }
        do {
            let store = try PostgresIndexBackend(fixture.location, coordinator: "before").openWriter(logger: PostgresFixture.logger)
            for workout in workouts {
                _ = try store.write { transaction in
                    try transaction.importWorkout(
                        workout, owner: Owner.defaultName, allowDuplicates: false, originalKept: false, now: Date(), replacedFile: { _ in })
                }
            }
        }
        let session = try fixture.session("downgrade")
        try session.query(
            """
            ALTER TABLE workout DROP COLUMN route_south, DROP COLUMN route_west, DROP COLUMN route_north, DROP COLUMN route_east,
                DROP COLUMN place
            """, "as pg4 left it")
        try session.query("DROP TABLE removal", "as pg4 left it")
        try session.query("DROP TABLE kept_reply", "as pg4 left it")
        try session.query("ALTER TABLE owner_settings DROP COLUMN card_figures", "as pg4 left it")
        try session.query("DELETE FROM schema_migration WHERE version >= 5", "as pg4 left it")
        #expect(try PostgresSchema.migrate(session, appliedBy: "test") == (4, PostgresSchema.currentVersion))
        let stored = try session.query(
            "SELECT source_id, route_south, route_west, route_north, route_east FROM workout ORDER BY source_id", "reading the boxes"
        ).map { row -> (String, RouteBounds?) in
            let (id, south, west, north, east) = try row.decode((String, Double?, Double?, Double?, Double?).self)
            return (id, RouteBounds(stored: south, west, north, east))
        }
        #expect(stored.map { $0.0 } == workouts.compactMap(\.sourceID).sorted())
        for (id, bounds) in stored {
            let workout = try #require(workouts.first { $0.sourceID == id })
            #expect(bounds != nil && bounds == RouteBounds(encodedRoute: SeriesCodec.encode(workout.route)), "\(id)")
        }
    }

    /// Another application's database is not taken for an empty index, and is left alone.
    @Test func aDatabaseOfAnotherApplicationIsNotAnIndex() throws {
        let fixture = try PostgresFixture(migrated: false)
        let session = try fixture.session("foreign")
        try session.query("CREATE TABLE invoices (id bigint PRIMARY KEY)", "making another application's table")
        do {
            try PostgresSchema.migrate(session, appliedBy: "test")
            Issue.record("migrated another application's database")
        } catch {
            #expect(error.code == .notAnIndex)
            #expect(error.message.contains("holds 1 tables or sequences but no WorkFeed index"), "\(error)")
        }
        let tables = try session.query("SELECT count(*)::bigint FROM pg_tables WHERE schemaname = 'public'", "counting")
        #expect(try tables.first { _ in true }?.decode(Int64.self) == 1)
    }

    /// A newer coordinator's schema is refused, and nothing is changed.
    @Test func aNewerSchemaIsRefused() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("newer")
        try session.query("INSERT INTO schema_migration (version, name, applied_by) VALUES (99, 'pg99: from the future', 'v9')", "")
        do {
            try PostgresSchema.migrate(session, appliedBy: "test")
            Issue.record("opened a newer schema")
        } catch {
            #expect(error.code == .migration)
            #expect(error.message.contains("schema version 99, newer than this coordinator's \(PostgresSchema.currentVersion)"), "\(error)")
        }
    }

    /// What cannot be reached is `unavailable`, naming where and why; a password comes from its
    /// file over TCP, where the server asks for one.
    @Test func whatCannotBeReachedIsUnavailableAndSaysWhy() throws {
        let fixture = try PostgresFixture()
        let nothing = try PostgresIndexLocation(url: "postgres://workfeed@127.0.0.1:\(try MotoServer.freePort())/x?sslmode=disable")
        do {
            _ = try PostgresSession.connect(to: nothing, name: "nothing", logger: PostgresFixture.logger, timeout: .seconds(2))
            Issue.record("connected to nothing")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("connecting to the index at postgres://workfeed@127.0.0.1:"), "\(error)")
        }

        let absent = try PostgresIndexLocation(url: fixture.server.socketURL(database: "no_such_database"))
        do {
            _ = try PostgresSession.connect(to: absent, name: "absent", logger: PostgresFixture.logger)
            Issue.record("connected to a database that does not exist")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.description.contains("database \"no_such_database\" does not exist"), "\(error)")
            #expect(error.serverError?.sqlState == "3D000")
        }

        let tcp = fixture.server.tcpURL(database: fixture.database)
        do {
            _ = try PostgresSession.connect(to: try PostgresIndexLocation(url: tcp), name: "no password", logger: PostgresFixture.logger)
            Issue.record("connected without the password the server asks for")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("index.password_file"), "\(error)")
        }
        let withPassword = try PostgresIndexLocation(url: tcp, passwordFile: fixture.server.passwordFile)
        let session = try PostgresSession.connect(to: withPassword, name: "password", logger: PostgresFixture.logger)
        let rows = try session.query("SELECT current_setting('jit'), current_setting('application_name')", "reading settings")
        let settings = try #require(rows.first { _ in true }).decode((String, String).self)
        #expect(settings.0 == "off" && settings.1 == "workfeed password")
    }

    /// A deadlock between two transactions is run again, not reported: the one the server picks
    /// as its victim retries and both commit.
    @Test func aDeadlockedTransactionIsRunAgain() throws {
        let fixture = try PostgresFixture()
        let setup = try fixture.session("setup")
        try setup.query("CREATE TABLE pair (id int PRIMARY KEY, n int NOT NULL)", "")
        try setup.query("INSERT INTO pair VALUES (1, 0), (2, 0)", "")
        let attempts = Mutex([0, 0])
        let errors = Mutex<[IndexError]>([])
        let both = DispatchGroup()
        for (number, order) in [(0, [1, 2]), (1, [2, 1])] {
            both.enter()
            Thread.detachNewThread {
                defer { both.leave() }
                do {
                    let session = try fixture.session("deadlock-\(number)")
                    try session.transaction("updating in the order \(order)") {
                        attempts.withLock { $0[number] += 1 }
                        try session.query("UPDATE pair SET n = n + 1 WHERE id = \(order[0])", "first row")
                        Thread.sleep(forTimeInterval: 0.3)
                        try session.query("UPDATE pair SET n = n + 1 WHERE id = \(order[1])", "second row")
                    }
                } catch {
                    errors.withLock { $0.append(error as? IndexError ?? IndexError(.failed, "\(error)")) }
                }
            }
        }
        both.wait()
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        // One of them was the victim and ran again (on a loaded machine its second run may meet
        // the other's again: then that one is the victim once too).
        #expect(attempts.withLock { $0 }.max() ?? 0 >= 2)
        let rows = try setup.query("SELECT n FROM pair ORDER BY id", "")
        #expect(try rows.map { try $0.decode(Int.self) } == [2, 2])
    }

    /// Statements sent without waiting (``PostgresSession/send(_:_:)``) are answered in order: the
    /// first that fails is the error of the next wait, named by what it was for, and the
    /// transaction rolls back with what was sent after it.
    @Test func aSentStatementThatFailsIsTheNextWaitsErrorAndNothingOfItsTransactionIsKept() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("sent")
        try session.query("CREATE TABLE one (id int PRIMARY KEY)", "")
        var committed = false
        do {
            try session.transaction("three rows", attempts: 1) {
                try session.send("INSERT INTO one VALUES (1)", "the first row")
                try session.send("INSERT INTO one VALUES (1)", "the first row again")
                try session.send("INSERT INTO one VALUES (2)", "the second row")
                try session.query("SELECT 1", "a read")
            }
            committed = true
        } catch {
            #expect("\(error)".contains("the first row again"), "\(error)")
            #expect(error.serverError?.sqlState == "23505", "\(error)")
        }
        #expect(!committed)
        #expect(try #require(try session.query("SELECT count(*)::bigint FROM one", "").first { _ in true }).decode(Int.self) == 0)
    }

    /// A connection lost in a transaction is not made again before the transaction ends: a
    /// statement after the loss (after a failure someone ignored, as a gauge does) fails too
    /// instead of running on a new connection outside the transaction, and the next transaction
    /// connects again.
    @Test func aConnectionLostInATransactionIsMadeAgainOnlyAfterIt() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("cut off")
        let other = try fixture.session("cutting")
        try session.query("CREATE TABLE one (id int PRIMARY KEY)", "")
        let pid = try #require(try session.query("SELECT pg_backend_pid()", "").first { _ in true }).decode(Int32.self)
        var secondStored = false
        do {
            try session.transaction("cut off", attempts: 1) {
                try session.query("INSERT INTO one VALUES (1)", "the first row")
                try other.query("SELECT pg_terminate_backend(\(pid), 5000)", "cutting the connection off")
                _ = try? session.query("SELECT 1", "a gauge")
                try session.query("INSERT INTO one VALUES (2)", "the second row")
                secondStored = true
            }
        } catch {
            #expect(error.code == .unavailable, "\(error)")
        }
        #expect(!secondStored)
        #expect(try #require(try session.query("SELECT count(*)::bigint FROM one", "").first { _ in true }).decode(Int.self) == 0)
        #expect(session.reconnections == 1)
    }
}
