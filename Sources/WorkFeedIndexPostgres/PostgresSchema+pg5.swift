import Foundation
import PostgresNIO
import WorkFeedIndex
import WorkFeedModel

// Migration pg5: each workout's route box (RouteBounds), which says which of its owner's privacy
// zones can change its pictures, so that a zone far away leaves their keys alone (docs/privacy.md,
// "Which pictures a zone changes"), as SQLite's v16. The boxes of the routes already stored are
// worked out from their series (``backfillPG5``); NULL for a route without a valid point.

extension PostgresSchema {
    static let pg5: [String] = [
        """
        ALTER TABLE workout ADD COLUMN route_south double precision, ADD COLUMN route_west double precision,
            ADD COLUMN route_north double precision, ADD COLUMN route_east double precision
        """
    ]

    /// Routes read a statement at a time by the backfill.
    static let backfillBatch = 500

    /// Every stored route, `backfillBatch` at a time in workout id order, in the caller's
    /// transaction: what a migration that works a column out from the routes reads.
    static func forEachStoredRoute(
        _ session: PostgresSession, for purpose: String, _ body: ([(UUID, ByteBuffer)]) throws(IndexError) -> Void
    ) throws(IndexError) {
        // The nil UUID sorts before every other and is no workout's id (their version bits are
        // set: WorkoutIdentity.workoutID), so the first batch starts at the beginning.
        var after = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        while true {
            let rows = try session.query(
                "SELECT workout_id, route FROM series WHERE workout_id > \(after) ORDER BY workout_id LIMIT \(backfillBatch)",
                "reading stored routes for \(purpose)"
            ).decoded("the stored routes") { try $0.decode((UUID, ByteBuffer).self) }
            guard let last = rows.last else { return }
            after = last.0
            try body(rows)
        }
    }

    /// Fills the boxes of the workouts stored before pg5 from their routes, in the migration's
    /// transaction.
    static func backfillPG5(_ session: PostgresSession) throws(IndexError) {
        try forEachStoredRoute(session, for: "their boxes") { rows throws(IndexError) in
            let boxes = rows.compactMap { id, route in RouteBounds(encodedRoute: route.readableBytesView).map { (id, $0) } }
            guard !boxes.isEmpty else { return }
            try session.query(
                """
                UPDATE workout w SET route_south = b.south, route_west = b.west, route_north = b.north, route_east = b.east
                FROM unnest(\(boxes.map(\.0))::uuid[], \(boxes.map(\.1.south))::float8[], \(boxes.map(\.1.west))::float8[],
                    \(boxes.map(\.1.north))::float8[], \(boxes.map(\.1.east))::float8[]) AS b(id, south, west, north, east)
                WHERE w.id = b.id
                """, "storing the boxes of \(boxes.count) routes")
        }
    }
}
