import Foundation
import PostgresNIO
import WorkFeedIndex
import WorkFeedModel

/// A leased job as a report or a take-back finds it, locked for the transaction: its lease, the
/// state the lease's claim on it depends on, and the hashes its cache key is made of.
struct LeasedRow {
    var id: Int64
    var lease: Int64
    var picture: PictureID
    var owner: String
    var worker: String
    var leaseAnchor: Int64
    var leaseKey: String?
    var anchor: Int64
    var status: String
    var cacheKey: String?
    var attempts: Int
    var deferrals: Int
    /// What the job's current key is made of.
    var inputs: PictureInputs

    /// Whether the lease still holds a claim on its job: the job is pending with the inputs it
    /// was leased with.
    var isCurrent: Bool { status == "pending" && anchor == leaseAnchor }

    /// What `SELECT` reads of a leased job `j` and its workout `w`; a query goes on with its
    /// `WHERE` and `FOR UPDATE OF j`.
    static let selection = """
        SELECT j.id, j.lease_id, j.workout_id, j.kind, j.theme, j.scale, j.owner, j.lease_worker, j.lease_anchor, j.lease_key, j.anchor,
            j.status, j.cache_key, j.attempts, j.deferrals, \(PictureInputs.selection)
        FROM job j JOIN workout w ON w.id = j.workout_id
        """

    /// What an `UPDATE job SET` writes to end a job's lease: the one list of the lease's columns,
    /// also written by the statements that store a report's outcome, which end the lease with it.
    static let endingLease = """
        lease_id = NULL, lease_coordinator = NULL, lease_worker = NULL, lease_anchor = NULL, lease_key = NULL, lease_deadline = NULL,
            lease_expires_at = NULL
        """

    /// Locks the rows of leases `leases` (``lockByLeasesFunction``: a turn's reports'), without
    /// waiting: the rows are ``rows(_:_:in:)``'s.
    static func lock(leases: [Int64], _ reading: String, in session: PostgresSession) throws(IndexError) -> PostgresSession.Sent {
        try session.send("SELECT * FROM pg_temp.workfeed_lock_leases(\(leases))", "locking \(reading)")
    }

    /// The rows ``lock(leases:_:in:)`` locked, in id order.
    static func rows(_ sent: PostgresSession.Sent, _ reading: String, in session: PostgresSession) throws(IndexError) -> [LeasedRow] {
        try decode(session.result(of: sent), reading)
    }

    /// ``locked(leases:_:in:)``'s statement: $1 the leases; the rows in id order.
    static let lockByLeasesFunction = PostgresSession.function(
        "workfeed_lock_leases", "bigint[]",
        returns: """
            TABLE (
                id bigint, lease_id bigint, workout_id uuid, kind text, theme text, scale integer, owner text, lease_worker text,
                lease_anchor bigint, lease_key text, anchor bigint, status text, cache_key text, attempts integer, deferrals integer,
                \(PostgresLeases.inputsColumns))
            """, "\(selection) WHERE j.lease_id = ANY($1) ORDER BY j.id FOR UPDATE OF j")

    /// The rows `query` (``selection`` and a condition) locks, in id order.
    static func locked(_ query: PostgresQuery, _ reading: String, in session: PostgresSession) throws(IndexError) -> [LeasedRow] {
        try decode(session.query(query, "locking \(reading)"), reading)
    }

    private static func decode(_ result: PostgresQueryResult, _ reading: String) throws(IndexError) -> [LeasedRow] {
        try result.decoded(reading) { row in
            let cells = row.makeRandomAccess()
            let id = try cells[0].decode(Int64.self)
            let picture = try PostgresLeases.picture(
                "job", row: String(id), workout: cells[2].decode(UUID.self), kind: cells[3].decode(String.self),
                theme: cells[4].decode(String.self), scale: cells[5].decode(Int.self))
            return LeasedRow(
                id: id, lease: try cells[1].decode(Int64.self), picture: picture, owner: try cells[6].decode(String.self),
                worker: try cells[7].decode(String.self), leaseAnchor: try cells[8].decode(Int64.self), leaseKey: try cells[9].decode(String?.self),
                anchor: try cells[10].decode(Int64.self), status: try cells[11].decode(String.self), cacheKey: try cells[12].decode(String?.self),
                attempts: try cells[13].decode(Int.self), deferrals: try cells[14].decode(Int.self),
                inputs: try PostgresLeases.inputs(row, workout: 2, from: 15))
        }
        .sorted { $0.id < $1.id }
    }

    /// Ends the leases of `rows`; those ended without their report (`remembered`) are kept in
    /// `ended_lease` for a while, so that a late report, whichever coordinator it reaches, still
    /// names the picture its worker wrote.
    static func end(_ rows: [LeasedRow], remembered: Bool, in session: PostgresSession) throws(IndexError) {
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.id)
        try session.query(
            """
            UPDATE job SET \(unescaped: endingLease) WHERE id = ANY(\(ids))
            """, "ending \(rows.count) leases")
        guard remembered else { return }
        try session.query(
            """
            INSERT INTO ended_lease (lease_id, workout_id, kind, theme, scale, lease_key)
            SELECT lease, workout, kind, theme, scale, nullif(key, '')
            FROM unnest(\(rows.map(\.lease)), \(rows.map(\.picture.workoutID.uuid)), \(rows.map(\.picture.kind.rawValue)),
                \(rows.map(\.picture.theme.rawValue)), \(rows.map { $0.picture.scale }), \(rows.map { $0.leaseKey ?? "" }))
                AS u(lease, workout, kind, theme, scale, key)
            ON CONFLICT (lease_id) DO NOTHING
            """, "remembering \(rows.count) ended leases")
    }
}
