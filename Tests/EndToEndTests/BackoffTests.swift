import Testing
@testable import WorkFeedWorker

/// The worker's back-off, without sockets or sleeps: the tests give the instants (issue 11).
@Suite struct BackoffTests {
    @Test func waitsDoubleUpToTheMaximumAndStartOverAfterASuccess() {
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(2))
        var waits: [Int64] = []
        for _ in 0..<6 {
            waits.append(backoff.milliseconds)
            backoff.grow()
        }
        #expect(waits == [250, 500, 1000, 2000, 2000, 2000])
        backoff.reset()
        #expect(backoff.current == .milliseconds(250))
        // A maximum below the initial wait is the initial wait.
        #expect(Backoff(initial: .seconds(1), maximum: .milliseconds(10)).maximum == .seconds(1))
    }

    @Test func aPausedWorkerProbesItsCacheLaterAndLaterUntilAProbeSucceeds() {
        let start = ContinuousClock.now
        var grown = Backoff(initial: .milliseconds(100), maximum: .milliseconds(800))
        grown.grow()
        // Pausing starts the back-off over, whatever it was.
        var pause = CachePause(reason: "cache write failed at write: No space left on device", at: start, backoff: grown)
        #expect(pause.nextProbe == start + .milliseconds(100))
        #expect(!pause.isProbeDue(at: start + .milliseconds(99)))
        #expect(pause.remaining(at: start + .milliseconds(40)) == .milliseconds(60))
        // Each failed probe waits twice as long from when it failed, capped.
        var now = start + .milliseconds(100)
        var gaps: [Duration] = []
        for _ in 0..<5 {
            #expect(pause.isProbeDue(at: now))
            pause.probeFailed(at: now)
            gaps.append(pause.nextProbe - now)
            now = pause.nextProbe
        }
        #expect(gaps == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(800), .milliseconds(800)])
        #expect(pause.remaining(at: now + .seconds(5)) == .zero)
    }
}
