import Foundation
import Logging
import Synchronization
import Testing
@testable import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedS3
import WorkFeedStore
import WorkFeedTesting
import WorkFeedWire

/// Removals that wait (issue 37, item 1): a bucket that does not answer for longer than the old
/// six tries (about 16 s) took pictures that a privacy zone had withdrawn, and deleted workouts'
/// pictures, off the coordinator's list until its next start. Now a removal the store refuses is
/// handed to the index to keep and tried again until it is done.
@Suite(.serialized, .enabled(if: MotoServer.isInstalled, Comment(rawValue: MotoServer.skipReason)))
struct RemovalQueueTests {
    /// What the queue handed on to be kept, and what it said was done.
    final class Kept: Sendable {
        let state = Mutex<(keep: [Removal], done: [Removal])>(([], []))
        var keep: [Removal] { state.withLock { $0.keep } }
        var done: [Removal] { state.withLock { $0.done } }
    }

    @Test func aRemovalTheBucketRefusesIsKeptAndDoneWhenItAnswersAgain() throws {
        let server = try MotoServer()
        let bucket = "wf-removals"
        let client = try server.newBucket(bucket)
        let store = S3PictureStore(client: client, prefix: "pictures")
        let key = String(repeating: "3d", count: 32)
        let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .dark, scale: 2)
        try store.put(Array("a withdrawn picture".utf8), for: picture, key: key)

        let context = ZMQContext()
        let endpoint = "inproc://removal-test-\(UUID().uuidString)"
        let pull = try ZMQSocket(context, type: .pull)
        _ = try pull.bind(endpoint)
        let kept = Kept()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-removals-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try RemovalQueue(
            store: store, originals: OriginalFileStore(files: DirectoryFileStore(root: directory.path)), held: HeldReplies(), context: context,
            doneEndpoint: endpoint,
            keeping: { keep, done in
                kept.state.withLock {
                    $0.keep += keep; $0.done += done
                }
            },
            logger: Logger(label: "test"))
        defer { queue.close() }

        // The bucket throttles (every request answered 503 SlowDown at once, on its port), and the
        // removals come.
        server.stop(kill: true)
        let slowDown = try FaultyS3Server(port: server.port)
        defer { slowDown.stop() }
        queue.enqueue([.key(key), .picture(picture)], holding: [])
        try waitFor("the refused removals kept") { Set(kept.keep) == [.key(key), .picture(picture)] }
        #expect(kept.done.isEmpty && queue.waiting == 2)
        // Longer than the six tries of before (0.5 + 1 + 2 + 4 + 8 s): still waiting, still kept.
        Thread.sleep(forTimeInterval: 17)
        #expect(kept.done.isEmpty && queue.waiting == 2, "given up: \(kept.done), \(queue.waiting) waiting")
        #expect(slowDown.answered >= 6, "\(slowDown.answered) requests")

        // It answers again, holding the picture still (moto starts empty: the test puts it back
        // before the next try, about 31 s after the first).
        slowDown.stop()
        try server.start()
        _ = try server.newBucket(bucket)
        try store.put(Array("a withdrawn picture".utf8), for: picture, key: key)
        try waitFor("the removals done", seconds: 40) { Set(kept.done) == [.key(key), .picture(picture)] }
        #expect(queue.waiting == 0)
        #expect(!store.contains(key: key) && !store.contains(picture))
    }

    /// Issue 37, item 2: a bucket that stalls held every reply of a batch with removals (other
    /// owners' too) until the store's own timeout, so the gateway answered 503 for changes that
    /// were carried out. A reply waits for its removals a second at most; the removal goes on.
    @Test func aStalledBucketHoldsTheBatchsRepliesASecondAtMost() throws {
        let server = try MotoServer()
        let client = try server.newBucket("wf-stalled")
        let store = S3PictureStore(client: client, prefix: "pictures")
        let key = String(repeating: "4e", count: 32)
        let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .route, theme: .light, scale: 1)
        try store.put(Array("a deleted workout's picture".utf8), for: picture, key: key)

        let context = ZMQContext()
        let endpoint = "inproc://removal-test-\(UUID().uuidString)"
        let pull = try ZMQSocket(context, type: .pull)
        _ = try pull.bind(endpoint)
        let held = HeldReplies()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-removals-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try RemovalQueue(
            store: store, originals: OriginalFileStore(files: DirectoryFileStore(root: directory.path)), held: held, context: context,
            doneEndpoint: endpoint, logger: Logger(label: "test"))
        defer { queue.close() }

        server.stop(kill: true)
        let stall = try FaultyS3Server(port: server.port, fault: .stall)
        defer { stall.stop() }
        let reply: RemovalQueue.Reply = (Array("gateway".utf8), ControlReply(id: 7, ok: true, body: []), 0)
        queue.enqueue([.key(key)], holding: [reply])
        try waitFor("the delete sent to the stalled bucket") { stall.answered >= 1 }
        #expect(held.take().isEmpty, "sent before its removal was tried or held a second")
        var sent: [RemovalQueue.Reply] = []
        try waitFor("the held reply sent", seconds: 4) {
            sent += held.take()
            return !sent.isEmpty
        }
        // Sent while the store still has not answered the delete (its timeout is 5 s).
        #expect(!queue.isIdle, "the removal ended before the reply was sent: the test did not stall it")
        #expect(sent.map(\.reply.id) == [7] && sent.map(\.identity) == [Array("gateway".utf8)])
    }

    @Test func aRemovalsKeptNameReadsBackAsIt() throws {
        let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: try #require(Theme(rawValue: "sepia")), scale: 3)
        let key = String(repeating: "ab", count: 32)
        let removals: [Removal] = [
            .picture(picture), .key(key), .pictureIfKey(picture, key, restoring: nil),
            .pictureIfKey(picture, key, restoring: String(repeating: "01", count: 32)), .original(String(repeating: "e", count: 64)),
        ]
        for removal in removals { #expect(Removal(keptName: removal.keptName) == removal, "\(removal.keptName)") }
        for damaged in ["", "key", "key nothex", "picture ../../etc/passwd", "original 12", "picture-if-key a b c", "removal key \(key)"] {
            #expect(Removal(keptName: damaged) == nil, "\(damaged)")
        }
    }

    func waitFor(_ what: String, seconds: Double = 10, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw MotoError("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
