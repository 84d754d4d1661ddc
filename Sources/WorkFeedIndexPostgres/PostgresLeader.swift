public import Foundation
import PostgresNIO
public import WorkFeedIndex

/// The leader of several coordinators: the one that does the periodic work (the start sweeps,
/// summary rebuild steps, pruning), one at a time (docs/postgres-index.md, "The leader"). It
/// holds the `leader` row's current term until the term runs out; it renews it while it lives,
/// gives it back when it stops, and begins each periodic transaction with ``fence(_:in:)``, so
/// that a leader that stalled past its term does no periodic work beside the next one.
///
/// Every time is the database's `now()`: no coordinator's clock is compared with another's.
public enum PostgresLeader {
    /// A term of leadership: who holds it, and its number (which only goes up).
    public typealias Term = LeadershipTerm

    /// How long a term lasts unless renewed: a dead leader's work waits this long for another.
    public static let defaultTermSeconds = 15.0

    /// Takes the lead for `coordinator` if the current term has run out (or was given back).
    /// - Returns: the new term, or `nil` while another's lives.
    public static func takeOver(
        as coordinator: String, termSeconds: Double = defaultTermSeconds, in session: PostgresSession
    ) throws(IndexError) -> Term? {
        let rows = try session.query(
            """
            UPDATE leader SET holder = \(coordinator), term = term + 1, elected_at = now(),
                expires_at = now() + make_interval(secs => \(termSeconds))
            WHERE role = 'periodic' AND expires_at < now() RETURNING term
            """, "taking the lead")
        return try rows.firstDecoded("the term taken") { Term(holder: coordinator, number: try $0.decode(Int64.self)) }
    }

    /// Renews `term` for `termSeconds` from now; `false` when it has run out or another holds
    /// the lead (the holder then stops its periodic work).
    public static func renew(_ term: Term, termSeconds: Double = defaultTermSeconds, in session: PostgresSession) throws(IndexError) -> Bool {
        let result = try session.query(
            """
            UPDATE leader SET expires_at = now() + make_interval(secs => \(termSeconds))
            WHERE role = 'periodic' AND holder = \(term.holder) AND term = \(term.number) AND expires_at >= now()
            """, "renewing \(term)")
        return (result.metadata.rows ?? 0) > 0
    }

    /// The first statement of every periodic transaction: it holds the leader row `FOR SHARE`
    /// until the transaction ends, so that no take-over happens meanwhile.
    /// - Throws: ``IndexError/Code/lostLead`` when `term` is no longer the current one; the
    ///   transaction is then rolled back, having done nothing.
    public static func fence(_ term: Term, in session: PostgresSession) throws(IndexError) {
        guard try holds(term, in: session) else {
            throw IndexError(.lostLead, "\(term) has ended: another coordinator leads now; the periodic work stops here")
        }
    }

    /// ``fence(_:in:)`` for a transaction that goes on without its periodic part: whether `term`
    /// is current (then held `FOR SHARE` until the transaction ends).
    public static func holds(_ term: Term, in session: PostgresSession) throws(IndexError) -> Bool {
        let rows = try session.query(
            """
            SELECT term FROM leader
            WHERE role = 'periodic' AND holder = \(term.holder) AND term = \(term.number) AND expires_at > now() FOR SHARE
            """, "fencing periodic work by \(term)")
        return rows.first(where: { _ in true }) != nil
    }

    /// Whether nobody's term lives: read without a lock, so that a coordinator that does not lead
    /// asks every second without waiting for the leader's transaction (``takeOver(as:termSeconds:in:)``
    /// decides under the row's lock).
    public static func isVacant(in session: PostgresSession) throws(IndexError) -> Bool {
        try session.query("SELECT expires_at < now() FROM leader WHERE role = 'periodic'", "reading whether anybody leads")
            .firstDecoded("the leader row") { try $0.decode(Bool.self) } ?? false
    }

    /// Gives `term` back (at shutdown), so that another takes over at once instead of when the
    /// term would have run out. Whether it was still held.
    @discardableResult
    public static func resign(_ term: Term, in session: PostgresSession) throws(IndexError) -> Bool {
        let result = try session.query(
            """
            UPDATE leader SET expires_at = '-infinity'
            WHERE role = 'periodic' AND holder = \(term.holder) AND term = \(term.number)
            """, "giving back \(term)")
        return (result.metadata.rows ?? 0) > 0
    }

    /// Who leads now and for how many more seconds (for `workctl status`); `nil` when nobody does.
    public static func current(in session: PostgresSession) throws(IndexError) -> (term: Term, secondsLeft: Double)? {
        let rows = try session.query(
            """
            SELECT holder, term, extract(epoch FROM expires_at - now())::float8 FROM leader
            WHERE role = 'periodic' AND expires_at > now()
            """, "reading who leads")
        return try rows.firstDecoded("the leader row") { row in
            let (holder, number, left) = try row.decode((String, Int64, Double).self)
            return (Term(holder: holder, number: number), left)
        }
    }
}

/// What a coordinator's writer knows of its lead between transactions: the store keeps it, and a
/// transaction's copy (``PostgresTransaction/lead(now:)``) is kept only if it commits.
public struct PostgresLeadership: Sendable {
    /// The term this writer holds, as of its last committed transaction.
    public var term: LeadershipTerm?
    public var termSeconds: Double
    /// When this writer last did the leader's upkeep (its own clock: a cadence, not a deadline).
    public var lastUpkeep: Date?
    /// How often the leader forgets old ended leases.
    public static let upkeepSeconds = 60.0

    public init(termSeconds: Double = PostgresLeader.defaultTermSeconds) {
        self.termSeconds = termSeconds
    }
}
