import Foundation
import Testing
@testable import WorkFeedIndex
import WorkFeedModel

/// Issue 23, findings 1 and 4, in the index: a report is stored only if its lease's key is still
/// the job's current key, and what refused and late reports wrote is handed back for removal,
/// never a key or a by-picture name that a job or a lease still refers to.
@Suite struct OutdatedReportTests {
    /// 64 hex digits from a word: a cache key as the store names files by.
    static func key(_ word: String) -> String { SHA256.hex(Array(word.utf8)) }

    /// Keys as the coordinator would make them, with the owner's privacy fingerprint in them.
    final class Keys: @unchecked Sendable {
        var fingerprint: [String: String] = [:]
        func key(_ picture: PictureID, _ inputs: PictureInputs) -> String {
            OutdatedReportTests.key("\(picture.kind)-\(picture.theme)-\(inputs.routeHash)-\(fingerprint[inputs.owner] ?? "")")
        }
    }

    static func leaseOne(_ index: WorkoutIndex, keys: Keys, counter: inout UInt64, now: Date = Date()) throws -> LeasedJob? {
        try index.write { transaction in
            let jobs = try transaction.lease(limit: 1, to: "w", now: now) {
                counter += 1
                return counter
            }
            for job in jobs {
                transaction.recordCacheKey(keys.key(job.picture, job.inputs), for: job.lease)
            }
            return jobs.first
        }
    }

    @Test func aReportOnAPolicyThatChangedSinceTheLeaseIsRefusedAndItsPictureHandedBack() throws {
        let temporary = try TemporaryIndex()
        let keys = Keys()
        let id = try temporary.index.write { try $0.importWorkout(sampleWorkout(), owner: "alice") }.id
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]), scales: [1], cacheKey: keys.key)
        }
        var counter: UInt64 = 0
        let job = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        let leasedKey = keys.key(job.picture, job.inputs)
        // The owner adds a zone while the worker draws: her keys change.
        keys.fingerprint["alice"] = "zone-1"
        let (effect, released) = try temporary.index.writeReleasingKeys {
            try $0.complete(
                JobReportRecord(lease: job.lease, outcome: .generated, detail: leasedKey), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(effect == .outdated(job.picture))
        #expect(released.keys == [leasedKey])
        #expect(released.pictures == [LeftoverPicture(picture: job.picture, key: leasedKey)])
        // Not stored; ready again at once, no attempt counted; leased again with the new key.
        let picture = try #require(try temporary.index.read { try $0.pictures(of: id) }.first)
        #expect(picture.status == .pending && picture.cacheKey == nil && picture.attempts == 0)
        #expect(try temporary.ready() == 1)
        let again = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        let newKey = keys.key(again.picture, again.inputs)
        #expect(newKey != leasedKey)
        let stored = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: again.lease, outcome: .generated, detail: newKey), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(stored == .updated(job.picture, .generated, reason: nil, retryAt: nil))
        #expect(try temporary.index.read { try $0.pictures(of: id) }.first?.cacheKey == newKey)
    }

    /// A failure reported on old inputs is refused too: the job is drawn again with the new ones
    /// instead of failing (or counting an attempt) for inputs it no longer has.
    @Test func aFailureOnOutdatedInputsCountsNothing() throws {
        let temporary = try TemporaryIndex()
        let keys = Keys()
        let id = try temporary.index.write { try $0.importWorkout(sampleWorkout(), owner: "bea") }.id
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]), scales: [1], cacheKey: keys.key)
        }
        var counter: UInt64 = 0
        let job = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        keys.fingerprint["bea"] = "zone-1"
        let (effect, released) = try temporary.index.writeReleasingKeys {
            try $0.complete(
                JobReportRecord(lease: job.lease, outcome: .failedRetry, detail: "timed out"), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(effect == .outdated(job.picture))
        #expect(released.isEmpty)
        #expect(try temporary.index.read { try $0.pictures(of: id) }.first?.attempts == 0)
    }

    /// Two workouts with the same inputs share one key. One is generated; the other is deleted
    /// while drawn, and its late report names the shared key: only its own by-picture name goes.
    @Test func aLateReportNeverReleasesAKeyAJobStoresOrALeaseDraws() throws {
        let temporary = try TemporaryIndex()
        let keys = Keys()
        let kept = try temporary.index.write { try $0.importWorkout(sampleWorkout(), owner: "erin") }.id
        let gone = try temporary.index.write { try $0.importWorkout(sampleWorkout(), owner: "fred") }.id
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: nil, kinds: [.route], themes: [.light]), scales: [1], cacheKey: keys.key)
        }
        var counter: UInt64 = 0
        let first = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        let second = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        let shared = keys.key(first.picture, first.inputs)
        #expect(shared == keys.key(second.picture, second.inputs))
        let (keptJob, goneJob) = first.picture.workoutID == kept ? (first, second) : (second, first)
        #expect(goneJob.picture.workoutID == gone)

        // Deleted while drawn; the other, still leased, is drawing the same key.
        let (_, whileLeased) = try temporary.index.writeReleasingKeys { try $0.delete([gone]) }
        #expect(whileLeased.isEmpty)
        let (late, afterDelete) = try temporary.index.writeReleasingKeys {
            try $0.complete(
                JobReportRecord(lease: goneJob.lease, outcome: .generated, detail: shared), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(late == .staleLease)
        #expect(afterDelete.keys.isEmpty, "a key a current lease draws was handed back")
        #expect(afterDelete.pictures == [LeftoverPicture(picture: goneJob.picture, key: shared)])

        // The other is stored; a second late report on the deleted one still leaves its key alone.
        _ = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: keptJob.lease, outcome: .generated, detail: shared), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        let (_, again) = try temporary.index.writeReleasingKeys {
            try $0.complete(
                JobReportRecord(lease: goneJob.lease, outcome: .generated, detail: shared), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(again.keys.isEmpty, "a key a job stores was handed back")
        // A leftover the sweep hands in for the stored picture itself is no leftover.
        let (_, swept) = try temporary.index.writeReleasingKeys { $0.discard(LeftoverPicture(picture: keptJob.picture, key: shared)) }
        #expect(swept.isEmpty)
    }

    /// A lease past its deadline, its job drawn again under a new key meanwhile: the late report's
    /// by-picture name is handed back with the key the job stores, to be given back to it.
    @Test func aLatePictureOverTheCurrentOneNamesTheCurrentKey() throws {
        let temporary = try TemporaryIndex()
        let keys = Keys()
        let id = try temporary.index.write { try $0.importWorkout(sampleWorkout(), owner: "ivan") }.id
        _ = try temporary.index.write {
            try $0.enqueue(EnqueueRequest(ids: [id], kinds: [.route], themes: [.light]), scales: [1], cacheKey: keys.key)
        }
        var counter: UInt64 = 0
        let first = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter))
        let firstKey = keys.key(first.picture, first.inputs)
        let later = Date().addingTimeInterval(3600)
        _ = try temporary.index.write { try $0.expireLeases(now: later, retry: RetryPolicy()) }
        keys.fingerprint["ivan"] = "zone-1"
        let second = try #require(try Self.leaseOne(temporary.index, keys: keys, counter: &counter, now: later.addingTimeInterval(3600)))
        let secondKey = keys.key(second.picture, second.inputs)
        #expect(secondKey != firstKey)
        _ = try temporary.index.write {
            try $0.complete(
                JobReportRecord(lease: second.lease, outcome: .generated, detail: secondKey), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        let (late, released) = try temporary.index.writeReleasingKeys {
            try $0.complete(
                JobReportRecord(lease: first.lease, outcome: .generated, detail: firstKey), from: "w", retry: RetryPolicy(), cacheKey: keys.key)
        }
        #expect(late == .staleLease)
        #expect(released.keys == [firstKey])
        #expect(released.pictures == [LeftoverPicture(picture: first.picture, key: firstKey)])
        #expect(released.current == [first.picture: secondKey])
    }
}
