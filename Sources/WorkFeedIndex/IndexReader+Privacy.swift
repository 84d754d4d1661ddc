import GRDB
import WorkFeedModel
public import WorkFeedPrivacy

// MARK: Privacy zones (docs/privacy.md)

extension IndexReader {
    /// An owner's privacy zones, oldest first.
    /// - Throws: ``IndexError`` naming the row and column of a zone that cannot be read.
    public func privacyZones(owner: String) throws -> [PrivacyZone] {
        try Row.fetchAll(
            db, sql: "SELECT id, latitude, longitude, radius FROM privacy_zone WHERE owner = ? ORDER BY id", arguments: [owner]
        ).map { row in
            let zone = RowDecoder(row, table: "privacy_zone")
            return PrivacyZone(
                id: try zone.value(0, "id"), latitude: try zone.value(1, "latitude"), longitude: try zone.value(2, "longitude"),
                radius: try zone.value(3, "radius"))
        }
    }

    /// Whether `key` named a picture that a change of its owner's privacy zones withdrew
    /// (``IndexTransaction/rememberWithdrawnPictures(owner:now:)``).
    public func isWithdrawn(key: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM withdrawn_picture WHERE key = ?", arguments: [key]) ?? false
    }

    /// The owners that have at least one privacy zone.
    public func ownersWithPrivacyZones() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT owner FROM privacy_zone ORDER BY owner")
    }
}
