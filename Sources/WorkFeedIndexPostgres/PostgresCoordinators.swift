public import Foundation
import PostgresNIO
public import WorkFeedIndex

/// The coordinators of one index, as they registered (docs/postgres-index.md, "The schema"):
/// what `workctl status` and the gauges show of who runs where. Nothing depends on these rows
/// for correctness: leases and the leader's term carry their own times.
public enum PostgresCoordinators {
    /// A coordinator as it registered.
    public struct Registration: Sendable, Hashable {
        /// `host:pid:boot`, made at start.
        public var id: String
        /// Where its workers and clients connect, for operators.
        public var endpoints: String
        public var startedAt: Date
        /// When it last said it lives (the database's clock).
        public var seenAt: Date
    }

    /// Registers `id` (or registers it again after a restart on the same id), with now as its
    /// start and its last sign of life.
    public static func register(_ id: String, endpoints: String, in session: PostgresSession) throws(IndexError) {
        try session.query(
            """
            INSERT INTO coordinator (id, started_at, seen_at, endpoints) VALUES (\(id), now(), now(), \(endpoints))
            ON CONFLICT (id) DO UPDATE SET started_at = now(), seen_at = now(), endpoints = excluded.endpoints
            """, "registering coordinator \(id)")
    }

    /// `id` lives: its last sign of life is now. Whether it was registered.
    @discardableResult
    public static func seen(_ id: String, in session: PostgresSession) throws(IndexError) -> Bool {
        try session.query("UPDATE coordinator SET seen_at = now() WHERE id = \(id)", "renewing coordinator \(id)").metadata.rows == 1
    }

    /// Removes `id` (it stopped cleanly). Whether it was registered.
    @discardableResult
    public static func deregister(_ id: String, in session: PostgresSession) throws(IndexError) -> Bool {
        try session.query("DELETE FROM coordinator WHERE id = \(id)", "removing coordinator \(id)").metadata.rows == 1
    }

    /// Every registered coordinator, the most recently seen first.
    public static func all(in session: PostgresSession) throws(IndexError) -> [Registration] {
        try session.query(
            "SELECT id, endpoints, started_at, seen_at FROM coordinator ORDER BY seen_at DESC, id", "listing the coordinators"
        ).decoded("the coordinators") { row in
            let (id, endpoints, started, seen) = try row.decode((String, String, Date, Date).self)
            return Registration(id: id, endpoints: endpoints, startedAt: started, seenAt: seen)
        }
    }
}
