public import Foundation
import GRDB
public import WorkFeedModel
public import WorkFeedPrivacy

// MARK: Privacy zones (docs/privacy.md)

extension IndexTransaction {
    /// At most this many zones per owner: each is tested against every point of every route.
    public static let maximumPrivacyZones = PrivacyZone.maximumPerOwner

    /// Adds a privacy zone to an owner's, checked first (``PrivacyZone/validate()``).
    /// - Returns: the zone as stored, with its id.
    /// - Throws: ``ValueRangeError`` for a zone off the globe or with a radius out of range, or
    ///   ``IndexError`` when the owner has ``maximumPrivacyZones`` already.
    public mutating func addPrivacyZone(owner: String, latitude: Double, longitude: Double, radius: Double, now: Date = Date()) throws -> PrivacyZone
    {
        try PrivacyZone(id: 0, latitude: latitude, longitude: longitude, radius: radius).validate()
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM privacy_zone WHERE owner = ?", arguments: [owner]) ?? 0
        guard count < Self.maximumPrivacyZones else {
            throw IndexError(.refused, "owner \(owner) has \(count) privacy zones, the most there may be: remove one first")
        }
        try db.execute(
            sql: "INSERT INTO privacy_zone (owner, latitude, longitude, radius, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [owner, latitude, longitude, radius, now.timeIntervalSince1970])
        return PrivacyZone(id: db.lastInsertedRowID, latitude: latitude, longitude: longitude, radius: radius)
    }

    /// Removes one of an owner's zones; another owner's zone is left alone, as if absent.
    /// - Returns: whether a zone was removed.
    public mutating func removePrivacyZone(owner: String, id: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM privacy_zone WHERE owner = ? AND id = ?", arguments: [owner, id])
        return db.changesCount == 1
    }

    /// The most withdrawn picture keys remembered per owner (``rememberWithdrawnPictures(owner:now:)``):
    /// an owner with 5,000 workouts and 4 pictures each fits one zone change, about 2 MB.
    public static let maximumWithdrawnPerOwner = IndexLimits.withdrawnPerOwner

    /// Remembers the keys of the owner's generated pictures that a change of the owner's privacy
    /// zones moves as withdrawn (their stored key is not `cacheKey`'s, made of the new zones: a
    /// zone far from a route leaves its key alone), before they are queued again: once the old
    /// files are removed, their URLs
    /// answer 410 Gone (``IndexReader/isWithdrawn(key:)``). A key still current is served as
    /// before, whatever is remembered. A key another owner's picture shares (the same file, no
    /// zones, the same settings) is not remembered: its URL must not tell that owner's holders
    /// anything of this owner. Keeps the newest `limit` of the owner
    /// (``maximumWithdrawnPerOwner``).
    /// - Returns: the keys remembered (the coordinator tells the gateways at once: `released`).
    public mutating func rememberWithdrawnPictures(
        owner: String, now: Date = Date(), keeping limit: Int = maximumWithdrawnPerOwner, cacheKey: CacheKeyFunction
    ) throws -> [String] {
        var moved: [String] = []
        let generated = try Row.fetchCursor(
            db,
            sql: """
                SELECT j.cache_key, j.workout_id, j.kind, j.theme, j.scale, \(PictureInputs.selection)
                FROM job j JOIN workout w ON w.id = j.workout_id
                WHERE j.owner = ? AND j.status = 'generated' AND j.cache_key IS NOT NULL
                """,
            arguments: [owner])
        while let row = try generated.next() {
            let job = RowDecoder(row, table: "job", idColumn: 1)
            let key: String = try job.value(0, "cache_key")
            if key != cacheKey(try job.picture(from: 1), try job.inputs(from: 5)) { moved.append(key) }
        }
        let remembered = try String.fetchAll(
            db,
            sql: """
                INSERT INTO withdrawn_picture (key, owner, withdrawn_at)
                    SELECT cache_key, owner, ? FROM job
                    WHERE owner = ? AND status = 'generated' AND cache_key IN (SELECT value FROM json_each(?))
                        AND NOT EXISTS (SELECT 1 FROM job AS other WHERE other.cache_key = job.cache_key AND other.owner != job.owner)
                ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, withdrawn_at = excluded.withdrawn_at
                RETURNING key
                """,
            arguments: [now.timeIntervalSince1970, owner, String(decoding: try JSONEncoder().encode(moved), as: UTF8.self)])
        try db.execute(
            sql: """
                DELETE FROM withdrawn_picture WHERE owner = ? AND key NOT IN (
                    SELECT key FROM withdrawn_picture WHERE owner = ? ORDER BY withdrawn_at DESC LIMIT ?)
                """,
            arguments: [owner, owner, limit])
        return remembered
    }

    /// Forgets an owner's withdrawn picture keys (the owner is leaving).
    public mutating func forgetWithdrawnPictures(owner: String) throws {
        try db.execute(sql: "DELETE FROM withdrawn_picture WHERE owner = ?", arguments: [owner])
    }

    /// Removes every zone of an owner (the owner is leaving).
    /// - Returns: how many were removed.
    public mutating func removePrivacyZones(owner: String) throws -> Int {
        try db.execute(sql: "DELETE FROM privacy_zone WHERE owner = ?", arguments: [owner])
        return db.changesCount
    }

    public mutating func indexIdentity() throws -> String {
        if let stored = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'index_id'") {
            guard let identity = IndexIdentity(bytes: Array(stored)) else {
                throw IndexError.corruptRow(table: "meta", row: "index_id", column: "value", value: "\(stored.count) bytes, not 16")
            }
            return identity.text
        }
        let made = IndexIdentity.random()
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('index_id', ?)", arguments: [Data(made.bytes)])
        return made.text
    }

    /// The secret that jitters every privacy cut (``PrivacyPolicy/secret``): 32 random bytes made
    /// the first time they are asked for and kept in the index, so that cuts stay where they are
    /// across restarts (a new secret would move every cut and hand an observer a second sample).
    public mutating func privacySecret() throws -> [UInt8] {
        if let stored = try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'privacy_secret'") {
            guard stored.count >= PrivacyPolicy.minimumSecretBytes else {
                throw IndexError.corruptRow(
                    table: "meta", row: "privacy_secret", column: "value",
                    value: "\(stored.count) bytes (at least \(PrivacyPolicy.minimumSecretBytes) are needed)")
            }
            return Array(stored)
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('privacy_secret', ?)", arguments: [Data(bytes)])
        return bytes
    }
}
