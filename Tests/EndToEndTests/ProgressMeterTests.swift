import Testing

@testable import WorkFeedCtl

/// The progress line's figures, on a clock the test drives.
@Suite struct ProgressMeterTests {
    /// 40 s with nothing done (no workers), then 58 done within 2 s: the rate is the recent one,
    /// not the average since the start, and the ETA follows it.
    @Test func theRateIsOverTheRecentWindowNotSinceTheStart() {
        var meter = ProgressMeter(total: 124, unit: "pictures", window: 20)
        for second in stride(from: 0.0, through: 40, by: 1) { meter.record(done: 0, workers: 0, seconds: second) }
        #expect(meter.rate == 0)
        #expect(meter.eta == nil)
        meter.record(done: 29, workers: 2, seconds: 41)
        meter.record(done: 58, workers: 2, seconds: 42)
        // Over the last 20 s: 58 pictures, not 58 in 42 s (1.4/s) as an average from the start.
        let rate = try! #require(meter.rate)
        #expect(abs(rate - 58.0 / 20) < 0.01)
        let eta = try! #require(meter.eta)
        #expect(abs(eta - 66 / rate) < 0.01)
        // Ten seconds later at the same pace the window has only recent samples.
        for second in 43...52 { meter.record(done: 58 + (second - 42) * 6, workers: 2, seconds: Double(second)) }
        #expect(abs(try! #require(meter.rate) - 118.0 / 20) < 0.01)
    }

    /// Failures are counted beside done, count toward the end, and show in the line.
    @Test func failuresAreCountedBesideDone() {
        var meter = ProgressMeter(total: 2_000, unit: "pictures")
        meter.record(done: 0, seconds: 0)
        meter.record(done: 1_204, failed: 12, workers: 2, seconds: 4)
        let line = meter.line(seconds: 4)
        #expect(line.hasPrefix("1,204/2,000 pictures done (60%), 12 failed, 304/s, ETA 3s, 2 workers"), "\(line)")
        meter.record(done: 1_988, failed: 12, workers: 2, seconds: 6)
        #expect(!meter.line(seconds: 6).contains("ETA"), "nothing left: no ETA")
    }

    /// The percentage is of those done, as the count before it (30/32 done is 94%, two failed);
    /// 100% only when every one is done.
    @Test func thePercentageIsOfThoseDone() {
        var meter = ProgressMeter(total: 32, unit: "pictures")
        meter.record(done: 30, failed: 2, seconds: 1)
        #expect(meter.line(seconds: 1).hasPrefix("30/32 pictures done (94%), 2 failed"), "\(meter.line(seconds: 1))")
        meter.total = 2_000
        meter.record(done: 1_999, seconds: 2)
        #expect(meter.line(seconds: 2).hasPrefix("1,999/2,000 pictures done (99%)"), "\(meter.line(seconds: 2))")
        meter.record(done: 2_000, seconds: 3)
        #expect(meter.line(seconds: 3).hasPrefix("2,000/2,000 pictures done (100%)"), "\(meter.line(seconds: 3))")
    }

    /// With no worker connected for a few seconds the line says so; a worker connecting clears it.
    @Test func aWarningWhenNoWorkerIsConnected() {
        var meter = ProgressMeter(total: 10, unit: "pictures", noWorkerWarningAfter: 5)
        meter.record(done: 0, workers: 0, seconds: 0)
        meter.record(done: 0, workers: 0, seconds: 4)
        #expect(!meter.line(seconds: 4).contains("no worker connected"))
        meter.record(done: 0, workers: 0, seconds: 5)
        #expect(meter.line(seconds: 5).contains("no worker connected"))
        #expect(meter.line(seconds: 5).contains("ETA unknown"))
        meter.record(done: 1, workers: 1, seconds: 6)
        #expect(!meter.line(seconds: 6).contains("no worker connected"))
    }

    @Test func numbersAreGroupedAndDurationsShort() {
        #expect(ProgressMeter.grouped(0) == "0")
        #expect(ProgressMeter.grouped(999) == "999")
        #expect(ProgressMeter.grouped(1_000) == "1,000")
        #expect(ProgressMeter.grouped(1_234_567) == "1,234,567")
        #expect(ProgressMeter.format(seconds: 59.4) == "59s")
        #expect(ProgressMeter.format(seconds: 61) == "1m01s")
        #expect(ProgressMeter.format(seconds: 3_725) == "1h02m")
    }
}
