import Foundation
import PostgresNIO
import Synchronization
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedModel
import WorkFeedPrivacy
import WorkFeedTesting

/// Privacy zones, the secret and withdrawn keys with several coordinators at once, against a
/// real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresPrivacyTests {
    /// Two coordinators adding zones for one owner at once: the most an owner may have holds,
    /// the rest are refused naming why, and every stored zone raised the owner's version.
    @Test func theMostZonesHoldsWhenTwoCoordinatorsAddAtOnce() throws {
        let fixture = try PostgresFixture()
        let stored = Mutex(0)
        let refused = Mutex<[String]>([])
        let failures = fixture.concurrently(["c1", "c2"]) { _, session in
            for number in 0..<20 {
                do {
                    try session.transaction("adding a zone") {
                        _ = try PostgresPrivacy.addZone(owner: "ann", latitude: 50 + Double(number) / 100, longitude: 4, radius: 300, in: session)
                    }
                    stored.withLock { $0 += 1 }
                } catch {
                    refused.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.isEmpty)
        let session = try fixture.session("check")
        #expect(stored.withLock { $0 } == PrivacyZone.maximumPerOwner)
        #expect(try PostgresPrivacy.zones(owner: "ann", in: session).count == PrivacyZone.maximumPerOwner)
        let reasons = refused.withLock { $0 }
        #expect(reasons.count == 40 - PrivacyZone.maximumPerOwner)
        #expect(reasons.allSatisfy { $0.contains("owner ann has 32 privacy zones, the most there may be") }, "\(reasons.first ?? "")")
        #expect(try PostgresPrivacy.policyVersion(owner: "ann", in: session) == Int64(PrivacyZone.maximumPerOwner))
        #expect(try PostgresPrivacy.ownersWithZones(in: session) == ["ann"])
        // A bad zone is refused before anything is changed.
        do {
            try session.transaction("adding a zone") {
                _ = try PostgresPrivacy.addZone(owner: "bob", latitude: 95, longitude: 4, radius: 300, in: session)
            }
            Issue.record("a zone off the map was stored")
        } catch {
            #expect(error.cause is ValueRangeError, "\(error)")
        }
        #expect(try PostgresPrivacy.policyVersion(owner: "bob", in: session) == 0)
    }

    /// Coordinators starting together make one secret between them.
    @Test func theSecretIsMadeOnceForEveryCoordinator() throws {
        let fixture = try PostgresFixture()
        let secrets = Mutex<[[UInt8]]>([])
        let failures = fixture.concurrently(["c1", "c2", "c3", "c4"]) { _, session in
            let secret = try session.transaction("the secret") { try PostgresPrivacy.secret(in: session) }
            secrets.withLock { $0.append(secret) }
        }
        #expect(failures.isEmpty, "\(failures)")
        let made = secrets.withLock { $0 }
        #expect(made.count == 4 && Set(made).count == 1 && made[0].count == 32)
    }

    /// Withdrawn keys are the owner's own (a key another owner's picture shares is not), and
    /// the newest are kept.
    @Test func withdrawnKeysAreTheOwnersOwnAndTheNewestAreKept() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 3, in: session)
        try PostgresFixture.addJobs(owner: "bob", count: 1, in: session)
        try session.query(
            """
            UPDATE job SET status = 'generated', cache_key = CASE WHEN owner = 'bob' THEN 'shared' ELSE 'ann-' || id END
            """, "")
        try session.query("UPDATE job SET cache_key = 'shared' WHERE id = (SELECT min(id) FROM job WHERE owner = 'ann')", "")
        let remembered = try session.transaction("withdrawing") {
            try PostgresPrivacy.rememberWithdrawn(owner: "ann", keeping: 10, cacheKey: { _, _ in "moved" }, in: session)
        }
        #expect(try PostgresPrivacy.isWithdrawn(key: "shared", in: session) == false)
        let annKeys = try session.query("SELECT cache_key FROM job WHERE owner = 'ann' AND cache_key <> 'shared'", "").map {
            try $0.decode(String.self)
        }
        // Ann's two, named (the coordinator publishes them), not the key bob shares.
        #expect(Set(remembered) == Set(annKeys) && remembered.count == 2, "\(remembered)")
        #expect(try annKeys.allSatisfy { try PostgresPrivacy.isWithdrawn(key: $0, in: session) })
        _ = try session.transaction("withdrawing") {
            try PostgresPrivacy.rememberWithdrawn(owner: "ann", keeping: 1, cacheKey: { _, _ in "moved" }, in: session)
        }
        #expect(try annKeys.filter { try PostgresPrivacy.isWithdrawn(key: $0, in: session) }.count == 1)
        try session.transaction("forgetting") { try PostgresPrivacy.forgetWithdrawn(owner: "ann", in: session) }
        #expect(try annKeys.allSatisfy { try !PostgresPrivacy.isWithdrawn(key: $0, in: session) })
    }

    /// Issue 37, item 7: PICTURE's `generated` on PostgreSQL: a key counts only while a generated
    /// picture's job stores it.
    @Test func aKeyIsGeneratedOnlyWhileAGeneratedJobStoresIt() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        try PostgresFixture.addJobs(owner: "ann", count: 2, in: session)
        try session.query("UPDATE job SET status = 'generated', cache_key = 'ann-' || id", "")
        let reader = PostgresReader(session: session)
        let keys = try session.query("SELECT cache_key FROM job ORDER BY id", "").map { try $0.decode(String.self) }
        #expect(try keys.allSatisfy { try reader.isGenerated(key: $0) })
        #expect(try reader.isGenerated(key: "never") == false)
        try session.query("UPDATE job SET status = 'pending' WHERE cache_key = \(keys[0])", "")
        #expect(try reader.isGenerated(key: keys[0]) == false && reader.isStored(key: keys[0]))
        #expect(try reader.isGenerated(key: keys[1]))
    }
}
