import Foundation
import Testing
@testable import WorkFeedCoordinator
import WorkFeedWire

/// ``HeldReplies``: a batch's replies wait for its removals' first try, or their time, whichever
/// comes first, and each goes once (issue 37, item 2).
@Suite struct HeldRepliesTests {
    func reply(_ id: UInt64) -> RemovalQueue.Reply { ([1], ControlReply(id: id, ok: true, body: []), 0) }

    @Test func repliesGoWhenReleasedOrWhenTheirTimeIsUpAndOnce() {
        let held = HeldReplies()
        let start = ContinuousClock.now
        let first = held.hold([reply(1), reply(2)], for: .seconds(1))
        let second = held.hold([reply(3)], for: .seconds(1))
        #expect(held.take(now: start).isEmpty)
        #expect(held.untilDue(now: start).map { $0 > .zero && $0 <= .seconds(2) } == true)
        #expect(held.release([second]))
        #expect(held.take(now: start).map(\.reply.id) == [3])
        // The first's time is up before its removals were tried: sent then, and not again.
        #expect(held.take(now: start + .seconds(2)).map(\.reply.id) == [1, 2])
        #expect(!held.release([first]))
        #expect(held.take(now: start + .seconds(3)).isEmpty)
        #expect(held.untilDue() == nil)
    }
}
