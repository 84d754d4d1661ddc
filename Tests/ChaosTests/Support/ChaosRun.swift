import Foundation
import WorkFeedModel
import WorkFeedTesting
import WorkFeedWire

/// What a chaos run does: how much work, how many workers, what gets killed when.
struct ChaosPlan {
    var label = "chaos"
    /// Route workouts made from the fixtures (one waypoint-only workout is added).
    var routes = 24
    var system = ChaosSystem.Settings()
    var kinds: [JobKind] = [.route, .heatmap]
    var themes: [Theme] = [.light, .dark]
    var scales = [1, 2]
    /// A worker is killed every so many seconds (drawn from the range) while work remains...
    var workerKillInterval: ClosedRange<Double>?
    /// ...or once each time this fraction of the jobs is done.
    var workerKillsAtFractions: [Double] = []
    /// How long a killed worker stays down.
    var workerRestartDelay: ClosedRange<Double> = 0.3...1.0
    /// A coordinator is killed (SIGKILL) and restarted when these fractions of the jobs are done;
    /// with several, each kill takes the next one in turn.
    var coordinatorKillsAtFractions: [Double] = []
    var coordinatorRestartDelay = 0.3
    /// The PostgreSQL server is restarted (a fast shutdown, as `systemctl restart` does, and
    /// nobody listening for ``postgresDownSeconds``) when these fractions are done.
    var postgresRestartsAtFractions: [Double] = []
    var postgresDownSeconds = 1.0
    /// For the whole run, from ENQUEUE until nothing is pending.
    var timeout: TimeInterval = 180
    var seed: UInt64 = 0xC4A05

    var workouts: Int { routes + 1 }
    /// Every fourth route workout (numbers 3, 7, 11, …) is written without heart rate
    /// (``WorkoutFiles``): no heatmap is queued for it. The waypoint-only workout has a heart-rate
    /// sample, so its heatmaps are queued (and fail: no route).
    var workoutsWithoutHeartRate: Int { routes / 4 }
    var jobs: Int {
        workouts * kinds.count * themes.count * scales.count
            - (kinds.contains(.heatmap) ? workoutsWithoutHeartRate * themes.count * scales.count : 0)
    }
}

/// What a chaos run saw.
struct ChaosResult {
    var jobs = 0
    var generated = 0
    var failed = 0
    var workerKills = 0
    var coordinatorKills = 0
    var postgresRestarts = 0
    var releasedFromWorkers = 0
    var releasedAtRestart = 0
    var wallSeconds = 0.0
    var verification: Verification?
    /// `*.tmp` files left in the cache, by whether their writer (the pid in the name) was killed.
    var temporaryFilesOfKilledWorkers: [String] = []
    var otherTemporaryFiles: [String] = []
    /// Processes that ended without being killed by the test, with their log tails.
    var unexpectedExits: [String] = []
    /// Processes that did not stop on SIGTERM at the end.
    var stubborn: [String] = []
    var notes: [String] = []

    var summary: String {
        """
        chaos: \(jobs) jobs: \(generated) generated, \(failed) failed-no-retry (as the inputs say: \(verification?.failedAsExpected ?? 0)), \
        \(verification?.bytesCompared ?? 0) PNGs identical to a local render
        chaos: kills survived: \(workerKills + coordinatorKills) (\(workerKills) workers, \(coordinatorKills) coordinator), all SIGKILL\
        \(postgresRestarts > 0 ? "; PostgreSQL restarted \(postgresRestarts) time\(postgresRestarts == 1 ? "" : "s")" : "")
        chaos: jobs re-leased: \(releasedFromWorkers + releasedAtRestart) (\(releasedFromWorkers) from dead or silent workers, \
        \(releasedAtRestart) at coordinator restarts)
        chaos: wall time \(String(format: "%.1f", wallSeconds)) s from enqueue to nothing pending \
        (\(String(format: "%.0f", Double(jobs) / max(wallSeconds, 0.001))) jobs/s)
        chaos: temporary files left: \(temporaryFilesOfKilledWorkers.count) by killed workers, \(otherTemporaryFiles.count) others
        """
    }
}

enum ChaosRun {
    static func run(_ plan: ChaosPlan) throws -> ChaosResult {
        let system = try ChaosSystem(plan.system, label: plan.label)
        defer { system.tearDown() }
        var random = SplitMix64(seed: plan.seed)
        var result = ChaosResult()
        result.jobs = plan.jobs

        let files = try WorkoutFiles(routes: plan.routes, into: system.directory.appendingPathComponent("inputs"))
        try system.startCoordinators()
        try system.startWorkers()
        _ = try system.waitFor("\(plan.system.workers) workers connected", timeout: 60) { _ in
            system.coordinators.indices.compactMap { try? system.status(of: $0).workers.count }.reduce(0, +) >= plan.system.workers
        }

        let imported = try system.workctl(["import", "--coordinator", system.controlEndpoint, "--json", files.directory.path])
        guard imported.status == 0 else { throw ChaosFailure("workctl import exited \(imported.status):\n\(imported.output)") }
        let before = try system.status()
        guard before.workouts == plan.workouts else {
            throw ChaosFailure("\(before.workouts) workouts in the index after import, expected \(plan.workouts):\n\(imported.output)")
        }

        let started = Date()
        let enqueued = try system.workctl([
            "enqueue", "--all", "--kind", plan.kinds.map(\.rawValue).joined(separator: ","), "--theme",
            plan.themes.map(\.rawValue).joined(separator: ","), "--scale", plan.scales.map(String.init).joined(separator: ","),
            "--json", "--coordinator", system.controlEndpoint,
        ])
        guard enqueued.status == 0, let reply = try? ControlCodec.decode(EnqueueReply.self, from: Array(enqueued.output.utf8)) else {
            throw ChaosFailure("workctl enqueue exited \(enqueued.status):\n\(enqueued.output)")
        }
        guard reply.created == plan.jobs else { throw ChaosFailure("ENQUEUE created \(reply.created) jobs, expected \(plan.jobs)") }

        // The chaos loop: one thread, polling STATUS; kills and restarts happen between polls.
        var workerKillFractions = plan.workerKillsAtFractions.sorted()
        var coordinatorKillFractions = plan.coordinatorKillsAtFractions.sorted()
        var postgresRestartFractions = plan.postgresRestartsAtFractions.sorted()
        var nextWorkerKill = plan.workerKillInterval.map { Date().addingTimeInterval(random.uniform(in: $0)) }
        var restarts: [(worker: Int, at: Date)] = []
        var killedPids = Set<Int32>()
        var lastStatus: StatusReply?
        let deadline = started.addingTimeInterval(plan.timeout)
        while true {
            guard Date() < deadline else {
                throw ChaosFailure(
                    "not done after \(Int(plan.timeout)) s; last STATUS: \(lastStatus.map(ChaosSystem.describe) ?? "none")\n"
                        + "coordinator log:\n\(system.coordinator.logTail(30))")
            }
            // Restart the workers whose downtime is over; notice any process that ended by itself.
            let now = Date()
            for restart in restarts where restart.at <= now { try system.workers[restart.worker].start() }
            restarts.removeAll { $0.at <= now }
            for (number, worker) in system.workers.enumerated() where !worker.isRunning && !restarts.contains(where: { $0.worker == number }) {
                result.unexpectedExits.append("\(worker.name) ended by itself (\(worker.terminationDescription)):\n\(worker.logTail(15))")
                try worker.start()
            }
            for (number, coordinator) in system.coordinators.enumerated() where !coordinator.isRunning {
                result.unexpectedExits.append(
                    "\(coordinator.name) ended by itself (\(coordinator.terminationDescription)):\n\(coordinator.logTail(30))")
                try system.startCoordinator(number)
            }

            // Every coordinator's STATUS: the counts are the index's (one SQLite file, or the
            // database they share), the workers and leases each coordinator's own.
            let statuses = system.coordinators.indices.map { try? system.status(timeoutMilliseconds: 2_000, of: $0) }
            guard let status = statuses.compactMap({ $0 }).first else {
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            lastStatus = status
            let leased = statuses.compactMap { $0?.leased }.reduce(0, +)
            let done = status.total(.generated) + status.total(.failedNoRetry)
            let pending = status.total(.pending)
            let planned = !workerKillFractions.isEmpty || !coordinatorKillFractions.isEmpty || !postgresRestartFractions.isEmpty
            if pending == 0 && leased == 0 && done == plan.jobs && !planned {
                break
            }
            if pending == 0 && leased == 0 && planned {
                throw ChaosFailure(
                    "the work was done before the planned kills (workers at \(workerKillFractions), coordinators at \(coordinatorKillFractions), "
                        + "PostgreSQL restarts at \(postgresRestartFractions)); give the run more work")
            }

            if let fraction = coordinatorKillFractions.first, Double(done) >= fraction * Double(plan.jobs) {
                coordinatorKillFractions.removeFirst()
                let victim = result.coordinatorKills % system.coordinators.count
                let coordinator = system.coordinators[victim]
                let held = statuses[victim]?.leased ?? 0
                if let pid = coordinator.pid { killedPids.insert(pid) }
                coordinator.kill9()
                result.coordinatorKills += 1
                result.notes.append("\(coordinator.name) killed at \(done)/\(plan.jobs) done, \(held) leased by it")
                // The jobs it had leased are leased again: on SQLite by the coordinator started
                // again (leases live in its memory), on PostgreSQL by whichever coordinator claims
                // them once their lease (index.lease_seconds) lapses.
                result.releasedAtRestart += held
                Thread.sleep(forTimeInterval: plan.coordinatorRestartDelay)
                try system.startCoordinator(victim)
                continue
            }

            if let fraction = postgresRestartFractions.first, Double(done) >= fraction * Double(plan.jobs) {
                postgresRestartFractions.removeFirst()
                guard let postgres = system.postgres else { throw ChaosFailure("a PostgreSQL restart is planned on \(plan.system.index)") }
                try postgres.restart(down: .milliseconds(Int(plan.postgresDownSeconds * 1000)))
                result.postgresRestarts += 1
                result.notes.append(
                    "PostgreSQL restarted at \(done)/\(plan.jobs) done (down \(plan.postgresDownSeconds) s), \(leased) leased")
                continue
            }

            var killNow = false
            if let fraction = workerKillFractions.first, Double(done) >= fraction * Double(plan.jobs) {
                workerKillFractions.removeFirst()
                killNow = true
            }
            if let due = nextWorkerKill, Date() >= due, let interval = plan.workerKillInterval {
                nextWorkerKill = Date().addingTimeInterval(random.uniform(in: interval))
                killNow = true
            }
            if killNow {
                // A busy worker if there is one, so that the kill takes jobs down with it.
                let running = system.workers.indices.filter { system.workers[$0].isRunning }
                let busyNames = Set(statuses.compactMap { $0 }.flatMap(\.workers).filter { $0.busy > 0 }.map(\.name))
                let busy = running.filter { busyNames.contains(system.workers[$0].name) }
                let candidates = busy.isEmpty ? running : busy
                if !candidates.isEmpty {
                    let victim = candidates[Int(random.next() % UInt64(candidates.count))]
                    if let pid = system.workers[victim].pid { killedPids.insert(pid) }
                    system.workers[victim].kill9()
                    result.workerKills += 1
                    restarts.append((victim, Date().addingTimeInterval(random.uniform(in: plan.workerRestartDelay))))
                }
            }
            // Often enough not to miss a planned kill on a fast machine; STATUS is cheap.
            Thread.sleep(forTimeInterval: workerKillFractions.isEmpty && coordinatorKillFractions.isEmpty ? 0.1 : 0.02)
        }
        result.wallSeconds = Date().timeIntervalSince(started)
        result.unexpectedExits += system.failedCoordinatorStarts.map { "the coordinator did not come up: \($0)" }

        let final = try system.status()
        result.generated = final.total(.generated)
        result.failed = final.total(.failedNoRetry)
        let feed = try system.feed()
        result.stubborn = system.stop()
        result.releasedFromWorkers = system.releasedLeases()

        // Temporary files are looked for once every writer has stopped.
        for file in system.temporaryFiles() {
            // `.<name>.<pid>.<random>.tmp`
            let parts = (file as NSString).lastPathComponent.split(separator: ".")
            let pid = parts.count >= 4 ? Int32(parts[parts.count - 3]) : nil
            if let pid, killedPids.contains(pid) {
                result.temporaryFilesOfKilledWorkers.append(file)
            } else {
                result.otherTemporaryFiles.append(file)
            }
        }

        let references = try ReferencePictures(
            files: files, kinds: plan.kinds, themes: plan.themes, scales: plan.scales, system: system,
            into: system.directory.appendingPathComponent("references"))
        result.verification = Verification(
            feed: feed, files: files, kinds: plan.kinds, themes: plan.themes, scales: plan.scales, cacheDirectory: system.cacheDirectory,
            references: references)
        return result
    }
}
