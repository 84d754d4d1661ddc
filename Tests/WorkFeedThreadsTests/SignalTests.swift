import Foundation
import Testing
import WorkFeedThreads

/// ``Signal``: what the worker's run waits on instead of polling (issue 41, item 1).
@Suite struct SignalTests {
    @Test func waitersBeforeAndAfterTheFireAllReturn() async {
        let signal = Signal()
        #expect(!signal.hasFired)
        let waiting = (0..<3).map { _ in Task { await signal.wait() } }
        // Fired from a thread of its own, as the worker's socket thread fires it.
        Thread.detachNewThread { signal.fire() }
        for task in waiting { await task.value }
        #expect(signal.hasFired)
        await signal.wait()  // after: at once
        signal.fire()  // again: nothing changes
        #expect(signal.hasFired)
    }

    @Test func aWaitDoesNotReturnBeforeTheFire() async throws {
        let signal = Signal()
        let returned = Task {
            await signal.wait()
            return Date()
        }
        try await Task.sleep(for: .milliseconds(50))
        let fired = Date()
        signal.fire()
        #expect(await returned.value >= fired)
    }
}
