import PostgresNIO
import WorkFeedIndex
import WorkFeedPlaces

// Migration pg8: the populated place each workout started in (StartPlace, docs/places.md), as
// SQLite's v19; filled for the workouts already stored from their routes (``backfillPG8``), NULL
// for a route without a valid point or far from every place.

extension PostgresSchema {
    static let pg8: [String] = ["ALTER TABLE workout ADD COLUMN place text"]

    /// Names the starts of the workouts stored before pg8, in the migration's transaction.
    static func backfillPG8(_ session: PostgresSession) throws(IndexError) {
        try forEachStoredRoute(session, for: "their start places") { rows throws(IndexError) in
            let places = rows.compactMap { id, route in StartPlace.label(encodedRoute: route.readableBytesView).map { (id, $0) } }
            guard !places.isEmpty else { return }
            try session.query(
                """
                UPDATE workout w SET place = p.place FROM unnest(\(places.map(\.0))::uuid[], \(places.map(\.1))::text[]) AS p(id, place)
                WHERE w.id = p.id
                """, "storing the start places of \(places.count) workouts")
        }
    }
}
