import Foundation
import NIOCore
import PostgresNIO
public import WorkFeedIndex
public import WorkFeedModel
public import WorkFeedPrivacy

/// Owners' privacy zones, the secret that jitters cuts and the withdrawn pictures' keys, in an
/// index several coordinators write (docs/postgres-index.md, "Hot rows" and "Reports").
///
/// Every change to what an owner's cache keys hash begins by raising the owner's policy version
/// (``raisePolicyVersion(owner:in:)``), which locks the owner's `owner_state` row until the
/// transaction ends: two changes of one owner's zones follow one another (the most zones an owner
/// may have holds under a race), and a report on one of the owner's pictures (which holds that row
/// `FOR SHARE`) is checked either before the change or after it, against the zones it made.
public enum PostgresPrivacy {
    /// Raises `owner`'s policy version (making the row when the owner has none) and locks it
    /// until the transaction ends; the new version.
    @discardableResult
    public static func raisePolicyVersion(owner: String, in session: PostgresSession) throws(IndexError) -> Int64 {
        let rows = try session.query(
            """
            INSERT INTO owner_state (owner) VALUES (\(owner))
            ON CONFLICT (owner) DO UPDATE SET policy_version = owner_state.policy_version + 1 RETURNING policy_version
            """, "raising the policy version of \(owner)")
        return try rows.firstDecoded("the policy version of \(owner)") { try $0.decode(Int64.self) } ?? 1
    }

    /// `owner`'s policy version: what a coordinator compares with the one its cached zones and
    /// settings were read at. 0 for an owner who never changed any.
    public static func policyVersion(owner: String, in session: PostgresSession) throws(IndexError) -> Int64 {
        let rows = try session.query("SELECT policy_version FROM owner_state WHERE owner = \(owner)", "reading the policy version of \(owner)")
        return try rows.firstDecoded("the policy version of \(owner)") { try $0.decode(Int64.self) } ?? 0
    }

    /// Adds a validated zone to an owner's (at most ``PrivacyZone/maximumPerOwner``), as
    /// ``IndexWriting/addPrivacyZone(owner:latitude:longitude:radius:now:)`` does.
    /// - Throws: ``ValueRangeError`` for a zone off the globe or with a radius out of range;
    ///   ``IndexError/Code/refused`` when the owner has the most zones there may be.
    public static func addZone(owner: String, latitude: Double, longitude: Double, radius: Double, in session: PostgresSession) throws -> PrivacyZone
    {
        try PrivacyZone(id: 0, latitude: latitude, longitude: longitude, radius: radius).validate()
        try raisePolicyVersion(owner: owner, in: session)
        let count =
            try session.query("SELECT count(*)::bigint FROM privacy_zone WHERE owner = \(owner)", "counting the zones of \(owner)")
            .firstDecoded("the zones of \(owner)") { try $0.decode(Int64.self) } ?? 0
        guard count < PrivacyZone.maximumPerOwner else {
            throw IndexError(.refused, "owner \(owner) has \(count) privacy zones, the most there may be: remove one first")
        }
        let rows = try session.query(
            """
            INSERT INTO privacy_zone (owner, latitude, longitude, radius, created_at)
            VALUES (\(owner), \(latitude), \(longitude), \(radius), now()) RETURNING id
            """, "adding a zone of \(owner)")
        guard let id = try rows.firstDecoded("the new zone's id", { try $0.decode(Int64.self) }) else {
            throw IndexError(.failed, "adding a zone of \(owner): no id")
        }
        return PrivacyZone(id: id, latitude: latitude, longitude: longitude, radius: radius)
    }

    /// Removes one of an owner's zones (another owner's is left alone, as if absent); whether one was.
    public static func removeZone(owner: String, id: Int64, in session: PostgresSession) throws(IndexError) -> Bool {
        try raisePolicyVersion(owner: owner, in: session)
        let result = try session.query("DELETE FROM privacy_zone WHERE owner = \(owner) AND id = \(id)", "removing zone \(id) of \(owner)")
        return result.metadata.rows == 1
    }

    /// Removes every zone of an owner (the owner is leaving); how many.
    public static func removeZones(owner: String, in session: PostgresSession) throws(IndexError) -> Int {
        try raisePolicyVersion(owner: owner, in: session)
        return try session.query("DELETE FROM privacy_zone WHERE owner = \(owner)", "removing the zones of \(owner)").metadata.rows ?? 0
    }

    /// An owner's zones, oldest first.
    public static func zones(owner: String, in session: PostgresSession) throws(IndexError) -> [PrivacyZone] {
        try session.query(
            "SELECT id, latitude, longitude, radius FROM privacy_zone WHERE owner = \(owner) ORDER BY id", "reading the zones of \(owner)"
        )
        .decoded("the zones of \(owner)") { row in
            let (id, latitude, longitude, radius) = try row.decode((Int64, Double, Double, Double).self)
            return PrivacyZone(id: id, latitude: latitude, longitude: longitude, radius: radius)
        }
    }

    /// The owners that have at least one zone.
    public static func ownersWithZones(in session: PostgresSession) throws(IndexError) -> [String] {
        try session.query("SELECT DISTINCT owner FROM privacy_zone ORDER BY owner", "reading the owners with zones")
            .decoded("the owners with zones") { try $0.decode(String.self) }
    }

    /// The secret that jitters every privacy cut: made by whichever coordinator asks first, the
    /// same for all of them after (``IndexWriting/privacySecret()``).
    public static func secret(in session: PostgresSession) throws(IndexError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let made = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try session.query(
            "INSERT INTO meta (key, bytes) VALUES ('privacy_secret', \(ByteBuffer(bytes: made))) ON CONFLICT (key) DO NOTHING",
            "making the privacy secret")
        let stored = try session.query("SELECT bytes FROM meta WHERE key = 'privacy_secret'", "reading the privacy secret")
            .firstDecoded("the privacy secret") { Array(try $0.decode(ByteBuffer.self).readableBytesView) }
        guard let stored, stored.count >= PrivacyPolicy.minimumSecretBytes else {
            throw IndexError.corruptRow(
                table: "meta", row: "privacy_secret", column: "bytes",
                value: "\(stored?.count ?? 0) bytes (at least \(PrivacyPolicy.minimumSecretBytes) are needed)")
        }
        return stored
    }

    /// Remembers the keys of the owner's generated pictures that a change of the owner's zones
    /// moves as withdrawn (``IndexWriting/rememberWithdrawnPictures(owner:now:keeping:cacheKey:)``):
    /// a key another owner's picture shares is not remembered; the owner's newest `limit` are kept.
    /// How many were remembered.
    public static func rememberWithdrawn(
        owner: String, keeping limit: Int = IndexLimits.withdrawnPerOwner, cacheKey: CacheKeyFunction, in session: PostgresSession
    ) throws(IndexError) -> [String] {
        let generated = try session.query(
            """
            SELECT j.cache_key, j.id, j.workout_id, j.kind, j.theme, j.scale, \(unescaped: PictureInputs.selection)
            FROM job j JOIN workout w ON w.id = j.workout_id
            WHERE j.owner = \(owner) AND j.status = 'generated' AND j.cache_key IS NOT NULL
            """, "reading the generated pictures of \(owner)"
        ).decoded("the generated pictures of \(owner)") { row in
            let cells = row.makeRandomAccess()
            let picture = try PostgresLeases.picture(
                "job", row: String(try cells[1].decode(Int64.self)), workout: cells[2].decode(UUID.self), kind: cells[3].decode(String.self),
                theme: cells[4].decode(String.self), scale: cells[5].decode(Int.self))
            let inputs = try PostgresLeases.inputs(row, workout: 2, from: 6)
            return (key: try cells[0].decode(String.self), picture: picture, inputs: inputs)
        }
        let moved = generated.filter { $0.key != cacheKey($0.picture, $0.inputs) }.map(\.key)
        let remembered = try session.query(
            """
            INSERT INTO withdrawn_picture (key, owner, withdrawn_at)
                SELECT DISTINCT cache_key, owner, now() FROM job
                WHERE owner = \(owner) AND status = 'generated' AND cache_key = ANY(\(moved))
                    AND NOT EXISTS (SELECT 1 FROM job AS other WHERE other.cache_key = job.cache_key AND other.owner <> job.owner)
            ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, withdrawn_at = excluded.withdrawn_at
            RETURNING key
            """, "remembering the withdrawn pictures of \(owner)"
        ).decoded("the withdrawn pictures of \(owner)") { try $0.decode(String.self) }
        try session.query(
            """
            DELETE FROM withdrawn_picture WHERE owner = \(owner) AND key NOT IN (
                SELECT key FROM withdrawn_picture WHERE owner = \(owner) ORDER BY withdrawn_at DESC, key LIMIT \(limit))
            """, "keeping the newest withdrawn pictures of \(owner)")
        return remembered
    }

    /// Forgets an owner's withdrawn picture keys (the owner is leaving).
    public static func forgetWithdrawn(owner: String, in session: PostgresSession) throws(IndexError) {
        try session.query("DELETE FROM withdrawn_picture WHERE owner = \(owner)", "forgetting the withdrawn pictures of \(owner)")
    }

    /// Whether `key` named a picture that a change of its owner's zones withdrew.
    public static func isWithdrawn(key: String, in session: PostgresSession) throws(IndexError) -> Bool {
        try session.query("SELECT 1 FROM withdrawn_picture WHERE key = \(key)", "looking up a withdrawn key").first { _ in true } != nil
    }
}
