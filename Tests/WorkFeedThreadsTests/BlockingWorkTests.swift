import Foundation
import Synchronization
import Testing
import WorkFeedThreads

/// ``BlockingWork``: blocking work runs off the cooperative pool, at most `limit` pieces at once,
/// and the next is refused at once instead of queued.
@Suite struct BlockingWorkTests {
    @Test func runsOffTheCooperativePoolAndReturnsWhatTheWorkReturns() async throws {
        let work = BlockingWork(label: "test", threads: 1, limit: 2)
        let name = try await work.run { Thread.current.name ?? "" }
        // NIO names its pool's threads; the cooperative pool's are not.
        #expect(name.contains("TP"), "\(name)")
        struct Failed: Error, Equatable {}
        await #expect(throws: Failed.self) { try await work.run { () throws -> Int in throw Failed() } }
        #expect(work.inUse == 0)
        await work.shutdown()
    }

    @Test func pastTheLimitWorkIsRefusedAtOnceAndLetInAgainLater() async throws {
        let work = BlockingWork(label: "uploads being read", threads: 1, limit: 2)
        let release = DispatchSemaphore(value: 0)
        // Two pieces: one running (blocked), one waiting behind it.
        let first = Task {
            try await work.run {
                release.wait(); return 1
            }
        }
        while work.inUse < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let second = Task { try await work.run { 2 } }
        while work.inUse < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let clock = ContinuousClock()
        let began = clock.now
        await #expect(throws: BlockingWorkError(label: "uploads being read", limit: 2)) { try await work.run { 3 } }
        #expect(clock.now - began < .seconds(1), "refused at once, not queued")
        release.signal()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(try await work.run { 4 } == 4)
        #expect(work.inUse == 0)
        await work.shutdown()
    }

    @Test func workOnAStoppedPoolIsRefusedAndRunToEndStillRuns() async throws {
        let work = BlockingWork(label: "stopped", threads: 1, limit: 1)
        await work.shutdown()
        await #expect(throws: BlockingWorkError(label: "stopped", limit: 1, stopped: true)) { try await work.run { 1 } }
        let ran = Atomic<Bool>(false)
        await work.runToEnd { ran.store(true, ordering: .relaxed) }
        let ranOnItsOwnThread = ran.load(ordering: .relaxed)
        #expect(ranOnItsOwnThread)
        await BlockingWork.shared.runToEnd { ran.store(false, ordering: .relaxed) }
        let ranOnTheSharedPool = !ran.load(ordering: .relaxed)
        #expect(ranOnTheSharedPool)
    }
}
