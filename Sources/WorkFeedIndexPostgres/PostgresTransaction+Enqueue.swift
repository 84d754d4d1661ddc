public import Foundation
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel

// MARK: Enqueue: PostgreSQL's steps (the rules: EnqueueRules.swift)

/// An SQL statement put together from pieces, its values bound as it goes (`$1`, `$2`, …).
struct PostgresStatement {
    var sql = ""
    var bindings = PostgresBindings()

    /// Binds `value`; its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: bindings) }

    /// The workouts a request names (ids, activities, a start-time window, an owner) as a
    /// condition on `workout w`, its values bound here: ENQUEUE and the STATUS that follows its
    /// jobs select the same workouts.
    mutating func workouts(of request: EnqueueRequest) -> String {
        var conditions: [String] = []
        if let ids = request.ids { conditions.append("w.id = ANY(\(bind(ids.map(\.uuid))))") }
        if let activities = request.activities { conditions.append("w.activity = ANY(\(bind(activities.map(\.rawValue))))") }
        if let since = request.since { conditions.append("w.start_at >= \(bind(since.timeIntervalSince1970))") }
        if let until = request.until { conditions.append("w.start_at < \(bind(until.timeIntervalSince1970))") }
        if let owner = request.owner { conditions.append("w.owner = \(bind(owner))") }
        return conditions.isEmpty ? "true" : conditions.joined(separator: " AND ")
    }
}

extension PostgresTransaction: EnqueueStorage {
    /// One picture of an enqueue, and the workouts the request selects. Each job it creates or
    /// changes takes an anchor of its own (docs/postgres-index.md, "Anchors"), from `firstK` on:
    /// those the scope made are told from older ones by that.
    public struct Scope: Sendable {
        let picture: EnqueuePicture
        let firstK: Int

        /// The request's workouts as a condition on `workout w`, bound into `statement`.
        func workouts(_ statement: inout PostgresStatement) -> String { statement.workouts(of: picture.request) }

        /// `FROM … WHERE …` of the scope's jobs `j` (joined with their workouts `w` only when the
        /// selection needs them), to which a step adds its own conditions.
        func jobs(_ statement: inout PostgresStatement) -> String {
            let picture =
                "j.kind = \(statement.bind(picture.kind.rawValue)) AND j.theme = \(statement.bind(picture.theme.rawValue)) AND j.scale = \(statement.bind(picture.scale))"
            let workouts = workouts(&statement)
            return workouts == "true"
                ? "FROM job j WHERE \(picture)" : "FROM job j JOIN workout w ON w.id = j.workout_id WHERE \(picture) AND \(workouts)"
        }

        /// A condition on job `j`: the scope made or changed it (its anchor is one of this
        /// transaction's, from the scope's first on).
        func madeHere(_ statement: inout PostgresStatement) -> String {
            "j.anchor BETWEEN (SELECT workfeed_anchor(\(statement.bind(firstK))::int)) AND (SELECT workfeed_anchor(\(statement.bind(PostgresAnchors.limit))::int))"
        }

        var described: String { "\(picture.kind.rawValue) \(picture.theme.rawValue) @\(picture.scale)x" }
    }

    public mutating func enqueueScope(_ picture: EnqueuePicture, now: Date) -> Scope {
        Scope(picture: picture, firstK: anchors.taken + 1)
    }

    public mutating func createMissingJobs(_ scope: Scope) throws -> Int {
        let needs = scope.picture.kind.workoutCondition.map { " AND \($0)" } ?? ""
        var count = PostgresStatement()
        let selected = scope.workouts(&count)
        count.sql = "SELECT count(*)::bigint FROM workout w WHERE \(selected)\(needs)"
        let candidates =
            try session.query(count.query, "counting the workouts of the \(scope.described) pictures").firstDecoded("the count") {
                try $0.decode(Int.self)
            } ?? 0
        guard candidates > 0 else { return 0 }
        let first = try anchors.reserve(candidates)
        var statement = PostgresStatement()
        let (kind, theme, scale) = (
            statement.bind(scope.picture.kind.rawValue), statement.bind(scope.picture.theme.rawValue), statement.bind(scope.picture.scale)
        )
        let priority = statement.bind(scope.picture.priority)
        let anchor = "workfeed_anchor((\(statement.bind(first)) + row_number() OVER (ORDER BY w.id) - 1)::int)"
        let workouts = scope.workouts(&statement)
        statement.sql = """
            INSERT INTO job (workout_id, kind, theme, scale, status, priority, updated_at, anchor, owner)
            SELECT w.id, \(kind), \(theme), \(scale), 'pending', \(priority), now(), \(anchor), w.owner FROM workout w
            WHERE \(workouts)\(needs)
            ORDER BY w.id
            ON CONFLICT (workout_id, kind, theme, scale) DO NOTHING
            RETURNING 1
            """
        return try session.query(statement.query, "creating the missing \(scope.described) jobs").reduce(0) { count, _ in count + 1 }
    }

    public mutating func rememberWanted(_ scope: Scope, lacking condition: String) throws {
        var statement = PostgresStatement()
        let (kind, theme, scale) = (
            statement.bind(scope.picture.kind.rawValue), statement.bind(scope.picture.theme.rawValue), statement.bind(scope.picture.scale)
        )
        let priority = statement.bind(scope.picture.priority)
        let workouts = scope.workouts(&statement)
        statement.sql = """
            INSERT INTO picture_wanted (workout_id, kind, theme, scale, priority)
            SELECT w.id, \(kind), \(theme), \(scale), \(priority) FROM workout w WHERE \(workouts) AND NOT (\(condition))
            ON CONFLICT (workout_id, kind, theme, scale) DO UPDATE SET priority = greatest(picture_wanted.priority, excluded.priority)
            """
        try session.query(statement.query, "remembering the \(scope.described) pictures of workouts that lack an input")
    }

    public func countLacking(_ scope: Scope, lacking condition: String) throws -> Int {
        var statement = PostgresStatement()
        let workouts = scope.workouts(&statement)
        statement.sql = "SELECT count(*)::bigint FROM workout w WHERE \(workouts) AND NOT (\(condition))"
        return try session.query(statement.query, "counting the workouts that lack an input").firstDecoded("the count") { try $0.decode(Int.self) }
            ?? 0
    }

    public func countWaitingAndFailed(_ scope: Scope) throws -> (alreadyPending: Int, failed: Int) {
        var statement = PostgresStatement()
        let fresh = scope.madeHere(&statement)
        let jobs = scope.jobs(&statement)
        statement.sql = "SELECT j.status, \(fresh), count(*)::bigint \(jobs) AND j.status <> 'generated' GROUP BY 1, 2"
        var alreadyPending = 0
        var failed = 0
        for (status, fresh, count) in try session.query(statement.query, "counting the waiting and failed \(scope.described) jobs")
            .decoded("the waiting and failed jobs", { row in try row.decode((String, Bool, Int).self) })
        {
            switch JobStatus(rawValue: status) {
            case .pending: if !fresh { alreadyPending += count }
            case .failedNoRetry: failed += count
            case .generated: break
            case nil: throw IndexError.corruptRow(table: "job", row: "\(count) jobs", column: "status", value: "'\(status.prefix(80))'")
            }
        }
        return (alreadyPending, failed)
    }

    public func generatedJobs(
        _ scope: Scope,
        _ body: (_ job: Int64, _ workout: WorkoutID, _ key: String?, _ inputs: PictureInputs) throws -> Void
    ) throws {
        var statement = PostgresStatement()
        let picture =
            "j.kind = \(statement.bind(scope.picture.kind.rawValue)) AND j.theme = \(statement.bind(scope.picture.theme.rawValue)) AND j.scale = \(statement.bind(scope.picture.scale))"
        let workouts = scope.workouts(&statement)
        statement.sql = """
            SELECT j.id, j.workout_id, j.cache_key, \(PictureInputs.selection) FROM job j JOIN workout w ON w.id = j.workout_id
            WHERE \(picture) AND \(workouts) AND j.status = 'generated'
            """
        let rows = try session.query(statement.query, "reading the generated \(scope.described) jobs").decoded("the generated jobs") { row in
            let cells = row.makeRandomAccess()
            let inputs = try PostgresLeases.inputs(row, workout: 1, from: 3)
            return (try cells[0].decode(Int64.self), try cells[1].decode(UUID.self), try cells[2].decode(String?.self), inputs)
        }
        for (job, workout, key, inputs) in rows { try body(job, WorkoutID(workout), key, inputs) }
    }

    public func failedToRevive(_ scope: Scope) throws -> [Int64] {
        var statement = PostgresStatement()
        let jobs = scope.jobs(&statement)
        let codes = scope.picture.request.reasonCodes.map { " AND j.reason_code = ANY(\(statement.bind($0)))" } ?? ""
        statement.sql = "SELECT j.id \(jobs) AND j.status = 'failed-no-retry'\(codes) ORDER BY j.id"
        return try session.query(statement.query, "finding the failed \(scope.described) jobs to try again").decoded("the failed jobs") {
            try $0.decode(Int64.self)
        }
    }

    public mutating func makePending(stale: [Int64], _ scope: Scope) throws {
        try makePending(stale, scope, readyAtOnce: false, "making the stale \(scope.described) pictures pending")
    }

    public mutating func revive(_ ids: [Int64], _ scope: Scope) throws {
        try makePending(ids, scope, readyAtOnce: true, "making the failed \(scope.described) pictures pending")
    }

    /// Jobs become pending at the request's priority, their attempts and failures forgotten (and
    /// ready at once, past any back-off, when `readyAtOnce`).
    private mutating func makePending(_ ids: [Int64], _ scope: Scope, readyAtOnce: Bool, _ doing: String) throws {
        guard !ids.isEmpty else { return }
        let first = try anchors.reserve(ids.count)
        var statement = PostgresStatement()
        let priority = statement.bind(scope.picture.priority)
        statement.sql = """
            UPDATE job SET status = 'pending', attempts = 0, deferrals = 0, reason = NULL, reason_code = NULL, priority = \(priority),
                \(readyAtOnce ? "not_before = NULL, " : "")updated_at = now(), anchor = workfeed_anchor((\(statement.bind(first)) + u.n - 1)::int)
            FROM unnest(\(statement.bind(ids))::bigint[]) WITH ORDINALITY AS u(id, n) WHERE job.id = u.id
            """
        try session.query(statement.query, doing)
    }

    public mutating func raisePriority(_ scope: Scope) throws {
        var statement = PostgresStatement()
        let priority = statement.bind(scope.picture.priority)
        let picture =
            "kind = \(statement.bind(scope.picture.kind.rawValue)) AND theme = \(statement.bind(scope.picture.theme.rawValue)) AND scale = \(statement.bind(scope.picture.scale))"
        let workouts = scope.workouts(&statement)
        statement.sql = """
            UPDATE job SET priority = \(priority)
            WHERE status = 'pending' AND priority < \(priority) AND \(picture) AND workout_id IN (SELECT w.id FROM workout w WHERE \(workouts))
            """
        try session.query(statement.query, "raising the waiting \(scope.described) pictures")
    }

    public func ownersWithInteractiveJobs() throws -> [String] {
        try session.query(
            "SELECT DISTINCT owner FROM job WHERE status = 'pending' AND priority > 0 ORDER BY owner", "listing owners with interactive jobs"
        )
        .decoded("the owners with interactive jobs") { try $0.decode(String.self) }
    }

    /// In one statement: the owner's interactive jobs numbered in the order they are kept in,
    /// those past `bound` made bulk work. Under the owner's lock, so that two coordinators
    /// bounding one owner at once keep `bound` between them.
    public mutating func boundInteractive(owner: String, bound: Int, preferring ids: [WorkoutID]?) throws -> Int {
        try lockOwner(owner)
        return try session.query(
            """
            UPDATE job SET priority = 0 FROM (
                SELECT id, row_number() OVER (ORDER BY priority DESC, workout_id = ANY(\((ids ?? []).map(\.uuid))) DESC, id) AS n
                FROM job WHERE status = 'pending' AND priority > 0 AND owner = \(owner)
            ) ranked
            WHERE job.id = ranked.id AND ranked.n > \(bound)
            RETURNING 1
            """, "keeping \(bound) interactive pictures of \(owner)"
        ).reduce(0) { count, _ in count + 1 }
    }
}
