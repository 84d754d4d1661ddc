public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
public import PostgresNIO
public import WorkFeedIndex

/// One connection to the index's database, for one thread: the coordinator's index thread, a
/// reader, a sweep. Its calls block until the server answers, so it is used from threads of
/// their own, never from Swift's cooperative pool (two threads here: a wait there would hold up
/// every task); the connection's own I/O runs on NIO's event loops.
///
/// Every failure is an ``IndexError``: ``IndexError/Code/unavailable`` when the server cannot be
/// reached, refuses the user or has no such database, or the connection is lost;
/// ``IndexError/Code/failed`` for a statement the server refused, with its SQLSTATE and message.
public final class PostgresSession {
    public let location: PostgresIndexLocation
    private(set) var connection: PostgresConnection
    private let configuration: PostgresConnection.Configuration
    let logger: Logger
    /// How many times the connection was made again after it was lost (a server restarted, a
    /// network cut): a writer that sees it change knows a transaction of its may have ended
    /// without its knowing how (``PostgresIndexStore``).
    public private(set) var reconnections = 0

    /// Transactions that fail on a deadlock or a serialization conflict (SQLSTATE 40P01, 40001)
    /// are run again, up to this many times in all: the other transaction has committed or given
    /// up by then, and nothing outside the index followed the failed one.
    public static let attempts = 5

    private init(location: PostgresIndexLocation, configuration: PostgresConnection.Configuration, connection: PostgresConnection, logger: Logger) {
        self.location = location
        self.configuration = configuration
        self.connection = connection
        self.logger = logger
    }

    /// Closes the connection (postgres-nio requires one closed before it goes): the server ends
    /// the session, and what it held (an open transaction, locks) is released at once.
    deinit { close() }

    /// Connects and sets up the session: `application_name` (what `pg_stat_activity` shows) and
    /// `jit = off` (compiling the claim's plan took 170 ms of a 1.5 ms statement:
    /// docs/postgres-index.md, "Decisions in short").
    /// - Parameter name: what the session is for, as `pg_stat_activity` shows it.
    public static func connect(
        to location: PostgresIndexLocation, name: String, logger: Logger, timeout: TimeAmount = .seconds(10)
    ) throws(IndexError) -> PostgresSession {
        let configuration = try Self.configuration(location, name: name, timeout: timeout)
        return PostgresSession(
            location: location, configuration: configuration, connection: try open(configuration, location: location, logger: logger), logger: logger)
    }

    private static func configuration(
        _ location: PostgresIndexLocation, name: String, timeout: TimeAmount
    ) throws(IndexError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            switch location.tls {
            case .disable: tls = .disable
            case .require, .verifyFull:
                var client = TLSConfiguration.makeClientConfiguration()
                if location.tls == .require { client.certificateVerification = .none }
                do { tls = .require(try NIOSSLContext(configuration: client)) } catch {
                    throw IndexError(.unavailable, "TLS for the index at \(location) cannot be set up", cause: error)
                }
            }
            configuration = .init(host: host, port: port, username: location.user, password: location.password, database: location.database, tls: tls)
        case .socket(let directory, let port):
            configuration = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: location.user, password: location.password, database: location.database)
        }
        configuration.options.connectTimeout = timeout
        configuration.options.additionalStartupParameters = [("application_name", "workfeed \(name)"), ("jit", "off")]
        return configuration
    }

    private static func open(
        _ configuration: PostgresConnection.Configuration, location: PostgresIndexLocation, logger: Logger
    ) throws(IndexError) -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw Self.indexError(error, doing: "connecting to the index at \(location)")
        }
        do {
            for definition in definitions { _ = try connection.query(PostgresQuery(unsafeSQL: definition), logger: logger).wait() }
        } catch {
            _ = try? (connection.close() as EventLoopFuture<Void>).wait()
            throw Self.indexError(error, doing: "defining the session's functions on the index at \(location)")
        }
        return connection
    }

    /// What every connection defines first, outside any transaction: functions of its own
    /// (`pg_temp`, gone with the connection), whose statements' plans the connection keeps from
    /// one call to the next. Their bodies name tables that need not exist yet (a database not
    /// migrated): PostgreSQL resolves them at the first call. Connections must be the session's
    /// own (no pooler in transaction mode between): docs/operations.md, "Several coordinators on PostgreSQL".
    static let definitions = [
        PostgresLeases.claimFunction, PostgresLeases.recordKeysFunction, LeasedRow.lockByLeasesFunction, PostgresReports.lockPoliciesFunction,
        PostgresReports.storeFunction,
    ]

    /// The definition of a function of the session's own (``definitions``): `name(arguments)`
    /// returning `returns`, whose body is one statement (`$1`... its arguments), its plan the
    /// generic one, made at the first call and kept (a turn's statements are the same each time
    /// with other values: planned each time, they cost more than they do).
    static func function(_ name: String, _ arguments: String, returns: String, _ statement: String) -> String {
        let run = returns == "void" ? statement : "RETURN QUERY \(statement)"
        return """
            CREATE FUNCTION pg_temp.\(name)(\(arguments)) RETURNS \(returns)
            LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $function$
            #variable_conflict use_column
            BEGIN
            \(run);
            END $function$
            """
    }

    /// A connection that was lost is made again before the next statement (one try: a server
    /// still away is ``IndexError/Code/unavailable``, and the caller waits and asks again).
    public func reconnectIfLost() throws(IndexError) {
        guard connection.isClosed else { return }
        connection = try Self.open(configuration, location: location, logger: logger)
        reconnections += 1
        logger.notice("connected to the index again", metadata: ["index": "\(location)", "reconnections": "\(reconnections)"])
    }

    /// Runs one statement and returns its rows (after those sent before it: ``send(_:_:)``).
    /// - Parameter doing: what the statement is for, for the error ("leasing jobs").
    @discardableResult
    public func query(_ query: PostgresQuery, _ doing: @autoclosure () -> String) throws(IndexError) -> PostgresQueryResult {
        try result(of: send(query, nil), doing())
    }

    /// A statement sent and not yet waited for (``send(_:_:)``).
    public struct Sent: Sendable {
        fileprivate let number: Int
    }

    /// Statements sent, in order, that nobody has waited for yet, with what each is for (`nil`:
    /// the one who waits for it says).
    private var unanswered: [(number: Int, answer: EventLoopFuture<PostgresQueryResult>, doing: String?)] = []
    private var sentCount = 0
    /// Whether a transaction is open: a connection lost in it is not made again before it ends
    /// (a statement on a new connection would run outside it).
    private var inTransaction = false

    /// Sends one statement without waiting for its answer: the thread goes on (and sends the
    /// next) while the server works, and the server answers them in the order they were sent.
    /// Its rows are ``result(of:_:)``'s; a statement whose rows nobody needs is waited for with
    /// the next one waited for (``query(_:_:)``, the transaction's `COMMIT`), and when it failed,
    /// that is the error thrown, named by its `doing`: a turn waits for three answers instead of
    /// seven (docs/postgres-index.md, "A turn's statements").
    @discardableResult
    public func send(_ query: PostgresQuery, _ doing: String?) throws(IndexError) -> Sent {
        if inTransaction {
            // Written to a closed channel, a statement is dropped and never answered.
            guard !connection.isClosed else { throw IndexError(.unavailable, "the connection to the index at \(location) was lost") }
        } else {
            try reconnectIfLost()
        }
        sentCount += 1
        unanswered.append((sentCount, connection.query(query, logger: logger), doing))
        return Sent(number: sentCount)
    }

    /// Waits for one answer. A statement written as the connection closed can be dropped with
    /// nobody told (NIO fails the write, not the statement): once the connection is closed, an
    /// answer not there a second later is not coming.
    private func wait(for answer: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let waiter = AnswerWaiter()
        answer.whenComplete { waiter.answer($0) }
        var closedFor = 0
        while true {
            if let result = waiter.result(within: 1) { return try result.get() }
            if connection.isClosed { closedFor += 1 }
            if closedFor >= 2 { throw IndexError(.unavailable, "the connection to the index at \(location) was lost before it answered") }
        }
    }

    /// Waits for `sent`'s answer, and for those of the statements sent before it. The first of
    /// them that failed is the error (those after it failed because it did, or were not run).
    /// - Parameter doing: what `sent` is for, when it was sent without saying.
    public func result(of sent: Sent, _ doing: @autoclosure () -> String = "") throws(IndexError) -> PostgresQueryResult {
        var failure: IndexError?
        var answer: PostgresQueryResult?
        while let first = unanswered.first, first.number <= sent.number {
            unanswered.removeFirst()
            do {
                let result = try wait(for: first.answer)
                if first.number == sent.number { answer = result }
            } catch {
                if failure == nil { failure = Self.indexError(error, doing: first.doing ?? doing()) }
            }
        }
        if let failure { throw failure }
        guard let answer else { throw IndexError(.failed, "statement \(sent.number) of the session was waited for twice") }
        return answer
    }

    /// When the session's cached plans were last thrown away (``discardPlansWhenDue()``).
    private var plansMadeSince = ContinuousClock.now

    /// Every ``planLifetime``, the plans the session's functions keep (``definitions``) are thrown
    /// away before the next transaction, and made again at their next call from the tables as
    /// they are then. A plan is made at a function's first call and is otherwise kept until an
    /// `ANALYZE` of its tables: one made when the job table was empty (a coordinator started
    /// before a bulk import) scanned what an index would find, and a claim took 54 ms instead of
    /// 2 (docs/postgres-index.md, "The claim's plan").
    private func discardPlansWhenDue() throws(IndexError) {
        let now = ContinuousClock.now
        guard now - plansMadeSince >= Self.planLifetime else { return }
        plansMadeSince = now
        try send("DISCARD PLANS", "discarding the session's plans")
    }

    /// How long the session keeps its functions' plans (``discardPlansWhenDue()``).
    static let planLifetime = Duration.seconds(2)

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. A
    /// deadlock or a serialization conflict runs it again (``attempts``), so `body` must do
    /// nothing outside the index that it cannot do twice.
    /// - Parameter attempts: how many times in all a conflict may run `body` (1: never again; the
    ///   ``IndexError/Code/conflict`` is thrown, for a caller whose `body` cannot run twice).
    public func transaction<T>(
        _ doing: @autoclosure () -> String, isolation: Isolation = .readCommitted, attempts: Int = PostgresSession.attempts,
        _ body: () throws -> T
    ) throws(IndexError) -> T {
        var attempt = 1
        while true {
            do {
                try discardPlansWhenDue()
                try send(isolation.begin, doing())
                inTransaction = true
                defer { inTransaction = false }
                let result = try body()
                try query("COMMIT", doing())
                return result
            } catch {
                // What was sent and not waited for is answered (or failed) before the rollback.
                if let last = unanswered.last { _ = try? result(of: Sent(number: last.number)) }
                let failure = error as? IndexError ?? IndexError(.failed, "\(doing()) failed", cause: error)
                // A lost connection rolled back by itself; otherwise undo what was done.
                if failure.code != .unavailable { _ = try? query("ROLLBACK", "rolling back \(doing())") }
                guard failure.isConflict, attempt < attempts else { throw failure }
                logger.debug("index transaction retried", metadata: ["doing": "\(doing())", "attempt": "\(attempt)", "error": "\(failure)"])
                attempt += 1
            }
        }
    }

    /// How a transaction sees the others' commits.
    public enum Isolation: Sendable {
        /// Each statement sees what was committed before it began (PostgreSQL's default): the
        /// writers', whose rules lock what they depend on.
        case readCommitted
        /// One committed state throughout, and no writes: a read transaction's.
        case snapshot

        var begin: PostgresQuery {
            switch self {
            case .readCommitted: "BEGIN"
            case .snapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
            }
        }
    }

    /// Closes the connection and waits until it is closed; the session cannot be used after.
    /// Closing one that is closed does nothing.
    public func close() {
        guard !connection.isClosed else { return }
        _ = try? (connection.close() as EventLoopFuture<Void>).wait()
    }

    /// SQLSTATEs that say the index cannot be reached as configured (besides class 08, the
    /// connection exceptions): invalid_authorization_specification, invalid_password,
    /// invalid_catalog_name (no such database), too_many_connections, admin_shutdown,
    /// crash_shutdown, cannot_connect_now.
    static let unreachable: Set<String> = ["28000", "28P01", "3D000", "53300", "57P01", "57P02", "57P03"]

    /// What `error`, thrown while `doing`, means for the index.
    static func indexError(_ error: any Error, doing: String) -> IndexError {
        if let error = error as? IndexError { return error }
        guard let error = error as? PSQLError else { return IndexError(.failed, "\(doing) failed", cause: error) }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "(no message)"
            let server = PostgresServerError(sqlState: state, message: message)
            switch state {
            case _ where unreachable.contains(state) || state.hasPrefix("08"):
                return IndexError(.unavailable, doing, cause: server)
            case "40P01", "40001":
                return IndexError(.conflict, doing, cause: server)
            default:
                return IndexError(.failed, doing, cause: server)
            }
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .sslUnsupported, .failedToAddSSLHandler:
            let underlying = error.underlying.map { ": \($0)" } ?? ""
            return IndexError(.unavailable, "\(doing): \(error.code)\(underlying)")
        case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
            return IndexError(
                .unavailable,
                "\(doing): the server asks for a password this coordinator does not have or cannot send (\(error.code)): "
                    + "index.password_file, WORKFEED_INDEX_PASSWORD_FILE")
        default:
            return IndexError(.failed, "\(doing): \(error.code)", cause: error)
        }
    }
}

/// What the server said when it refused a statement: kept as an ``IndexError``'s cause.
public struct PostgresServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLSTATE (`40P01`, `23505`, ...).
    public var sqlState: String
    public var message: String

    public var description: String { "the server said \(message) (SQLSTATE \(sqlState))" }
}

extension IndexError {
    /// The server's refusal, when that is what it is.
    public var serverError: PostgresServerError? { cause as? PostgresServerError }

    /// A deadlock or serialization failure: the transaction may be run again as it was.
    var isConflict: Bool { code == .conflict }
}

extension Sequence where Element == PostgresRow {
    /// Each row through `decode`, in order. A value that cannot be decoded is an ``IndexError``
    /// naming what was being read; one `decode` throws itself (a corrupt row) comes as it is.
    func decoded<T>(_ reading: @autoclosure () -> String, _ decode: (PostgresRow) throws -> T) throws(IndexError) -> [T] {
        do {
            return try map(decode)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "reading \(reading())", cause: error)
        }
    }

    /// The first row through `decode` (``decoded(_:_:)``); `nil` when there is none.
    func firstDecoded<T>(_ reading: @autoclosure () -> String, _ decode: (PostgresRow) throws -> T) throws(IndexError) -> T? {
        try prefix(1).decoded(reading(), decode).first
    }
}

/// One answer waited for by a thread (``PostgresSession``'s waits).
private final class AnswerWaiter: @unchecked Sendable {
    private let lock = ConditionLock(value: false)
    private var outcome: Result<PostgresQueryResult, any Error>?

    func answer(_ result: Result<PostgresQueryResult, any Error>) {
        lock.lock()
        outcome = result
        lock.unlock(withValue: true)
    }

    /// The answer, or `nil` when it has not come within `seconds`.
    func result(within seconds: Double) -> Result<PostgresQueryResult, any Error>? {
        guard lock.lock(whenValue: true, timeoutSeconds: seconds) else { return nil }
        defer { lock.unlock() }
        return outcome
    }
}
