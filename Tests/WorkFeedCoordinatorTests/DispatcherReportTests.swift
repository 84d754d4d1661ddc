import Foundation
import Testing
import WorkFeedConfig
@testable import WorkFeedCoordinator
import WorkFeedIndex
import WorkFeedModel
import WorkFeedPrivacy
import WorkFeedWire

/// What the dispatcher does with reports that race a change of their inputs (privacy zones, a
/// delete), with leases that end, and with several idle workers: the rules issue 34 asks to hold
/// on one coordinator first, then across several. Each runs on both indexes (``TestedIndex``).
@Suite struct DispatcherReportTests {
    /// No back-off, so that a job taken back is ready at once and no test sleeps for it.
    static func noBackoff(_ configuration: inout CoordinatorConfiguration) {
        configuration.initialBackoffSeconds = 0
        configuration.environmentInitialBackoffSeconds = 0
    }

    static func removesPicture(_ outbox: Outbox, drawnUnder key: String) -> Bool {
        outbox.removals.contains { removal in
            switch removal {
            case .pictureIfKey(_, let removed, _), .key(let removed): removed == key
            case .picture, .original: false
            }
        }
    }

    /// A zone added while a worker draws gives the picture a new key: the report on the old one
    /// is refused, what it wrote goes, and the job is drawn again under the new key.
    @Test(arguments: TestedIndex.available) func aZoneAddedWhileAWorkerDrawsRefusesThePictureDrawnBeforeIt(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, AZoneAddedWhileAWorkerDrawsRefusesThePictureDrawnBeforeIt())
    }

    struct AZoneAddedWhileAWorkerDrawsRefusesThePictureDrawnBeforeIt: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queuedLine(owner: "alice")
            let job = try #require(jobs(bench.turn(workers: [ready([1], capacity: 1)])).first)
            let zones = try bench.answer(.zones, ZonesRequest(owner: "alice", add: DispatcherBench<Backend>.atTheLinesStart))
            #expect(zones.ok)

            let outbox = bench.turn(workers: [([1], generated(job))])
            #expect(DispatcherReportTests.removesPicture(outbox, drawnUnder: job.cacheKey), "the refused picture's file goes")
            let again = try #require(jobs(outbox, to: [1]).first, "drawn again at once")
            #expect(again.workoutID == job.workoutID && again.cacheKey != job.cacheKey && again.lease != job.lease)
            #expect(try bench.statuses() == [.pending: 1])

            _ = bench.turn(workers: [([1], generated(again))])
            #expect(try bench.statuses() == [.generated: 1])
        }
    }

    /// A zone added after a picture was drawn withdraws its key (its URL answers 410 once the
    /// file is gone) and queues it again; another owner's pictures keep theirs.
    @Test(arguments: TestedIndex.available) func aZoneAddedAfterwardsWithdrawsTheOwnersPicturesOnly(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, AZoneAddedAfterwardsWithdrawsTheOwnersPicturesOnly())
    }

    struct AZoneAddedAfterwardsWithdrawsTheOwnersPicturesOnly: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queuedLine(owner: "alice")
            _ = try bench.queued(1..<2, owner: "bob")
            let drawn = jobs(bench.turn(workers: [ready([1], capacity: 2)]))
            #expect(drawn.count == 2)
            _ = bench.turn(workers: drawn.map { ([1], generated($0)) })
            #expect(try bench.statuses() == [.generated: 2])

            // At the start of alice's line and of bob's route.
            let reply = try bench.answer(.zones, ZonesRequest(owner: "alice", add: DispatcherBench<Backend>.atTheLinesStart))
            #expect(try ControlCodec.decode(ZonesReply.self, from: reply.body).stale == 1)
            let withdrawn = try drawn.map { job in try bench.dispatcher.index.read { try $0.isWithdrawn(key: job.cacheKey) } }
            #expect(withdrawn.filter { $0 }.count == 1, "alice's key is withdrawn, bob's is not")
            #expect(try bench.statuses() == [.generated: 1, .pending: 1])
        }
    }

    /// A zone whose hidden circle cannot meet a route leaves its pictures' keys as they are
    /// (docs/privacy.md, "Which pictures a zone changes"): adding it and removing it again make
    /// nothing stale and withdraw nothing; a zone on the route re-keys its pictures.
    @Test(arguments: TestedIndex.available) func aZoneFarAwayLeavesThePicturesKeys(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, AZoneFarAwayLeavesThePicturesKeys())
    }

    struct AZoneFarAwayLeavesThePicturesKeys: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<2, owner: "alice")
            let drawn = jobs(bench.turn(workers: [ready([1], capacity: 2)]))
            #expect(drawn.count == 2)
            _ = bench.turn(workers: drawn.map { ([1], generated($0)) })
            func withdrawn(_ bench: borrowing DispatcherBench<Backend>) throws -> Int {
                try drawn.filter { job in try bench.dispatcher.index.read { try $0.isWithdrawn(key: job.cacheKey) } }.count
            }

            // Tokyo, and 2.9 km north of the routes: a 500 m zone hides at most 1.2 km from its centre.
            for (latitude, longitude) in [(35.68, 139.76), (52.027, 4.0)] {
                let far = try ControlCodec.decode(
                    ZonesReply.self,
                    from: try bench.answer(.zones, ZonesRequest(owner: "alice", add: .init(latitude: latitude, longitude: longitude, radius: 500)))
                        .body)
                #expect(far.stale == 0, "a zone at \(latitude), \(longitude) made \(far.stale) pictures stale")
            }
            #expect(try withdrawn(bench) == 0)
            #expect(try bench.statuses() == [.generated: 2])
            let zones = try ControlCodec.decode(ZonesReply.self, from: try bench.answer(.zones, ZonesRequest(owner: "alice")).body).zones
            let removed = try ControlCodec.decode(
                ZonesReply.self, from: try bench.answer(.zones, ZonesRequest(owner: "alice", remove: zones[0].id)).body)
            #expect(removed.stale == 0 && removed.zones.count == 1)
            #expect(try bench.statuses() == [.generated: 2])

            // Workout 1 starts 11 m north of workout 0's start: a zone at workout 1's end meets both.
            let near = try ControlCodec.decode(
                ZonesReply.self,
                from: try bench.answer(.zones, ZonesRequest(owner: "alice", add: .init(latitude: 52.0011, longitude: 4.001, radius: 200))).body)
            #expect(near.stale == 2)
            #expect(try withdrawn(bench) == 2)
        }
    }

    /// Adding a zone the owner has already adds nothing (a request carried out twice, through two
    /// coordinators, leaves one zone): the same zone is answered, nothing becomes stale, and the
    /// pictures keep their keys.
    @Test(arguments: TestedIndex.available) func aZoneAddedTwiceIsOneZone(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, AZoneAddedTwiceIsOneZone())
    }

    struct AZoneAddedTwiceIsOneZone: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<1, owner: "alice")
            let drawn = jobs(bench.turn(workers: [ready([1], capacity: 1)]))
            _ = bench.turn(workers: drawn.map { ([1], generated($0)) })
            let zone = ZonesRequest(owner: "alice", add: .init(latitude: 52, longitude: 4, radius: 300))
            let first = try ControlCodec.decode(ZonesReply.self, from: try bench.answer(.zones, zone).body)
            #expect(first.stale == 1 && first.zones.count == 1)
            let before = try bench.statuses()

            let again = try ControlCodec.decode(ZonesReply.self, from: try bench.answer(.zones, zone).body)
            #expect(again.zones == first.zones && again.added == first.added && again.stale == 0)
            #expect(try bench.statuses() == before)
            // Another radius is another zone.
            let wider = ZonesRequest(owner: "alice", add: .init(latitude: 52, longitude: 4, radius: 400))
            #expect(try ControlCodec.decode(ZonesReply.self, from: try bench.answer(.zones, wider).body).zones.count == 2)
        }
    }

    /// A workout deleted while a worker draws it is gone with its jobs; the worker's late report
    /// stores nothing, and what it wrote is removed.
    @Test(arguments: TestedIndex.available) func aWorkoutDeletedWhileAWorkerDrawsItIsNotStoredBack(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, AWorkoutDeletedWhileAWorkerDrawsItIsNotStoredBack())
    }

    struct AWorkoutDeletedWhileAWorkerDrawsItIsNotStoredBack: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            let ids = try bench.queued(0..<1, owner: "alice")
            let job = try #require(jobs(bench.turn(workers: [ready([1], capacity: 1)])).first)
            let reply = try bench.answer(.delete, DeleteRequest(ids: ids, owner: "alice"))
            #expect(try ControlCodec.decode(DeleteReply.self, from: reply.body).deleted == ids)

            let outbox = bench.turn(workers: [([1], generated(job))])
            #expect(DispatcherReportTests.removesPicture(outbox, drawnUnder: job.cacheKey))
            #expect(jobs(outbox).isEmpty)
            #expect(try bench.statuses().isEmpty)
            #expect(try bench.dispatcher.index.read { try $0.workoutCount(owner: nil) } == 0)
        }
    }

    /// A turn's reports are recorded together (one statement for their pictures on PostgreSQL),
    /// each as it would be alone: a report sent twice in one turn is stored once (and its file,
    /// which the job stores, stays), a failure is tried again, a picture under a key the job was
    /// not sent with is refused, and another worker's report on a lease not its own changes nothing.
    @Test(arguments: TestedIndex.available) func aTurnsReportsAreEachRecordedAsAlone(_ index: TestedIndex) throws {
        try index.check(adjust: DispatcherReportTests.noBackoff, ATurnsReportsAreEachRecordedAsAlone())
    }

    struct ATurnsReportsAreEachRecordedAsAlone: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<4, owner: "alice")
            let sent = jobs(bench.turn(workers: [ready([1], capacity: 4)]))
            #expect(sent.count == 4)
            guard sent.count == 4 else { return }
            let (mine, failing, misnamed, last) = (sent[0], sent[1], sent[2], sent[3])
            let outbox = bench.turn(workers: [
                ready([2], capacity: 1),
                ([1], generated(mine)),
                ([1], generated(mine)),
                ([1], .status(JobReport(lease: failing.lease, outcome: .failedRetry, detail: "out of memory", renderMicroseconds: 5))),
                (
                    [1],
                    .status(JobReport(lease: misnamed.lease, outcome: .generated, detail: String(repeating: "e", count: 64), renderMicroseconds: 5))
                ),
                ([2], generated(last)),
            ])
            #expect(!DispatcherReportTests.removesPicture(outbox, drawnUnder: mine.cacheKey), "the stored picture's file stays")
            // Mine generated; failing and misnamed pending again (drawn again by the free slots);
            // last still pending, its lease its own worker's.
            let statuses = try bench.statuses()
            #expect(statuses == [.generated: 1, .pending: 3], "\(statuses)")
            let pictures = try bench.dispatcher.index.read { reader in try [failing, misnamed].map { try reader.pictures(of: $0.workoutID) } }
            #expect(pictures.map { $0.map(\.reasonCode) } == [[FailureCode.transient.rawValue], [FailureCode.keyMismatch.rawValue]], "\(pictures)")
            _ = bench.turn(workers: [([1], generated(last))])
            #expect(try bench.statuses() == [.generated: 2, .pending: 2])
        }
    }

    /// A lease past its deadline is taken back and given to a worker with a free slot; the first
    /// worker's report, come too late, stores nothing.
    @Test(arguments: TestedIndex.available) func aLeasePastItsDeadlineGoesToAnotherWorkerAndTheLateReportIsIgnored(_ index: TestedIndex) throws {
        try index.check(
            adjust: {
                DispatcherReportTests.noBackoff(&$0)
                // Deadlines are on the index's wall clock: a millisecond, and the test waits ten.
                $0.jobDeadlineSeconds = 0.001
            }, ALeasePastItsDeadlineGoesToAnotherWorkerAndTheLateReportIsIgnored())
    }

    struct ALeasePastItsDeadlineGoesToAnotherWorkerAndTheLateReportIsIgnored: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<1, owner: "alice")
            let first = try #require(jobs(bench.turn(workers: [ready([1], capacity: 1)])).first)
            Thread.sleep(forTimeInterval: 0.01)
            // Deadlines are looked at once a second of the loop's clock.
            let outbox = bench.turn(after: .seconds(2), workers: [ready([2], capacity: 1)])
            let second = try #require(jobs(outbox, to: [2]).first)
            #expect(second.workoutID == first.workoutID && second.lease != first.lease)

            _ = bench.turn(workers: [([1], generated(first))])
            #expect(try bench.statuses() == [.pending: 1], "the late report is not stored")
            _ = bench.turn(workers: [([2], generated(second))])
            #expect(try bench.statuses() == [.generated: 1])
        }
    }

    /// A few ready jobs are dealt one at a time over the idle workers, not queued on the first.
    @Test(arguments: TestedIndex.available) func aFewReadyJobsSpreadOverIdleWorkers(_ index: TestedIndex) throws {
        try index.check(AFewReadyJobsSpreadOverIdleWorkers())
    }

    struct AFewReadyJobsSpreadOverIdleWorkers: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            _ = try bench.queued(0..<2, owner: "alice")
            let outbox = bench.turn(workers: [ready([1], capacity: 4), ready([2], capacity: 4)])
            #expect(jobs(outbox, to: [1]).count == 1)
            #expect(jobs(outbox, to: [2]).count == 1)
        }
    }

    /// Within an owner, the oldest job goes first.
    @Test(arguments: TestedIndex.available) func anOwnersOldestPictureGoesFirst(_ index: TestedIndex) throws {
        try index.check(AnOwnersOldestPictureGoesFirst())
    }

    struct AnOwnersOldestPictureGoesFirst: DispatcherCheck {
        func run<Backend: IndexBackend>(_ bench: inout DispatcherBench<Backend>) throws {
            let older = try bench.queued(0..<1, owner: "alice")
            let newer = try bench.queued(1..<2, owner: "alice")
            let first = jobs(bench.turn(workers: [ready([1], capacity: 1)]))
            #expect(first.map(\.workoutID) == older)
            let next = jobs(bench.turn(workers: [([1], generated(first[0]))]))
            #expect(next.map(\.workoutID) == newer)
        }
    }
}

/// A long DELETE goes in steps, each in a batch of its own, each reported to a client that asked.
@Suite struct DispatcherDeleteStepTests {
    @Test func aLongDeleteGoesInStepsEachReported() throws {
        var bench = try DispatcherBench<SQLiteIndexBackend>()
        let count = Dispatcher<WorkoutIndex>.deleteStep * 2 + 10
        let imports = try (0..<count).map { number in
            let workout = ImportedWorkout.twoPoint(number)
            return try bench.request(
                .importWorkout, ImportRequest(workout, owner: "leaving"),
                attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
        }
        let imported = bench.turn(control: imports).control
        #expect(imported.count == count && imported.allSatisfy { $0.reply.ok })
        let delete = try bench.request(.delete, DeleteRequest(ids: nil, owner: "leaving", progress: true))
        var outbox = bench.turn(control: [delete])
        var progress: [Int] = []
        var steps = 0
        while steps < 10 {
            steps += 1
            let replies = outbox.control.filter { $0.reply.id == delete.id }.map(\.reply)
            #expect(replies.count == 1, "step \(steps): one reply")
            guard let reply = replies.first else { break }
            if !reply.isProgress {
                let done = try ControlCodec.decode(DeleteReply.self, from: reply.body)
                #expect(done.deleted.count == count)
                break
            }
            progress.append(try ControlCodec.decode(ControlProgress.self, from: reply.body).done)
            var batch = Batch()
            batch.received = bench.now
            batch.controlMessages = outbox.continuing
            outbox = bench.dispatcher.process(batch)
        }
        #expect(progress == [250, 500])
        #expect(try bench.dispatcher.index.read { try $0.workoutCount(owner: nil) } == 0)
    }
}
