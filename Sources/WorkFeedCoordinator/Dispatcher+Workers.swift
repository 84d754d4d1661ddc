import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedStore
import WorkFeedTiles
import WorkFeedWire

// MARK: The workers: their health, leases that end, and dispatch

extension Dispatcher {
    /// Sets aside a worker whose last reports were all transient failures while other workers'
    /// pictures were generated: a worker whose cache is read-only, or that cannot draw, would
    /// otherwise keep taking jobs and failing them. Its leases go back without counting an
    /// attempt, it is told why, and a READY under its name is refused for `workers.set_aside_seconds`.
    func watchHealth(
        _ known: Dictionary<[UInt8], WorkerState>.Index, status: JobStatus, transient: Bool, code: FailureCode?, now: ContinuousClock.Instant,
        workers: inout [[UInt8]: WorkerState], health: inout WorkerHealth, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws {
        if status == .generated {
            workers.values[known].failureStreak = 0
            workers.values[known].streakStarted = nil
            health.lastGenerated = now
            return
        }
        guard transient else { return }  // the inputs' fault: says nothing about the worker
        workers.values[known].failureStreak += 1
        if workers.values[known].streakStarted == nil { workers.values[known].streakStarted = now }
        let worker = workers.values[known]
        guard worker.failureStreak >= configuration.setAsideAfterFailures, let started = worker.streakStarted,
            let generated = health.lastGenerated, generated > started
        else { return }
        let identity = workers.keys[known]
        workers.removeValue(forKey: identity)
        health.setAside[worker.name] = now + .milliseconds(Int64(configuration.setAsideSeconds * 1000))
        logger.error(
            "worker set aside: its jobs keep failing where other workers' succeed",
            metadata: [
                "worker": "\(worker.name.escapedForDisplay)", "failures": "\(worker.failureStreak)", "code": "\(code?.rawValue ?? "")",
                "seconds": "\(Int(configuration.setAsideSeconds))",
            ])
        outbox.events.append(.worker(name: worker.name, change: "set-aside"))
        outbox.worker.append(
            (
                identity,
                .disconnect(
                    reason:
                        "set aside for \(Int(configuration.setAsideSeconds)) s: your last \(worker.failureStreak) jobs failed (\(code?.rawValue ?? "transient")) while other workers' succeeded",
                    code: .setAside
                )
            ))
        try release(
            worker, reason: "worker \(worker.name) set aside", cause: .setAside, countAttempt: false, transaction: &transaction, outbox: &outbox)
    }

    /// JOBs that could not be sent: their leases end without counting an attempt, and their
    /// worker, unreachable, is gone (a worker that comes back says READY again).
    func returnUnsent(
        _ unsent: [(identity: [UInt8], lease: UInt64)], workers: inout [[UInt8]: WorkerState], transaction: inout Index.Transaction,
        outbox: inout Outbox
    ) throws {
        for (identity, lease) in unsent where try transaction.returnLease(lease) {
            workers[identity]?.inFlight.remove(lease)
        }
        for identity in Set(unsent.map(\.identity)) {
            guard let worker = workers.removeValue(forKey: identity) else { continue }
            outbox.events.append(.worker(name: worker.name, change: "gone"))
            logger.warning("worker unreachable; its jobs go to others", metadata: ["worker": "\(worker.name)", "jobs": "\(worker.inFlight.count)"])
            try release(worker, reason: "worker \(worker.name) unreachable", cause: .unreachable, transaction: &transaction, outbox: &outbox)
        }
    }

    /// Workers silent past their expiry are gone; their leases return to the queue.
    func expireWorkers(
        now: ContinuousClock.Instant, workers: inout [[UInt8]: WorkerState], transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws {
        for (identity, worker) in workers where now - worker.lastHeard > workerExpiry {
            workers.removeValue(forKey: identity)
            outbox.events.append(.worker(name: worker.name, change: "gone"))
            logger.warning("worker went silent; its jobs go to others", metadata: ["worker": "\(worker.name)", "jobs": "\(worker.inFlight.count)"])
            try release(worker, reason: "worker \(worker.name) went silent", cause: .silent, transaction: &transaction, outbox: &outbox)
        }
    }

    func release(
        _ worker: WorkerState, reason: String, cause: CoordinatorMetrics.LeaseLoss, countAttempt: Bool = true, transaction: inout Index.Transaction,
        outbox: inout Outbox
    ) throws {
        let effects = try transaction.releaseLeases(
            of: worker.key, reason: reason, code: cause.failureCode, countAttempt: countAttempt, retry: retry, now: Date())
        outbox.tally.leaseLosses[cause, default: 0] += worker.inFlight.count
        for effect in effects { outbox.tally.record(effect, renderMicroseconds: nil) }
        if !worker.inFlight.isEmpty {
            logger.notice(
                "leases returned to the queue", metadata: ["worker": "\(worker.name)", "jobs": "\(worker.inFlight.count)", "reason": "\(reason)"])
        }
    }

    /// Leases ready jobs to workers with free slots, never more than their free slots, the least
    /// loaded workers first.
    func dispatch(
        workers: inout [[UInt8]: WorkerState], specs: inout PictureSpecs, leaseCounter: inout UInt64,
        transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws {
        let order = workers.filter { $0.value.credits > 0 }
            .sorted { ($0.value.inFlight.count, $0.value.key) < ($1.value.inFlight.count, $1.value.key) }
        guard !order.isEmpty else { return }
        let identities = Dictionary(uniqueKeysWithValues: order.map { ($0.value.key, $0.key) })
        let jobs = try transaction.lease(
            order.map { ($0.value.key, $0.value.credits) }, now: Date(), deadline: configuration.jobDeadlineSeconds
        ) {
            leaseCounter += 1
            return bootPrefix | leaseCounter
        }
        // The owners' zones and settings as the index holds them (another coordinator may have
        // changed them), before any key is computed or route cut.
        for job in jobs { try specs.follow(owner: job.owner, to: job.policyVersion, reader: transaction.reader) }
        var keyed: [(job: LeasedJob, identity: [UInt8], cacheKey: String)] = []
        for job in jobs {
            guard let identity = identities[job.worker] else { continue }
            guard specs.draws(job.picture.theme) else {
                let themes = configuration.drawnThemes.map(\.rawValue).joined(separator: ", ")
                try failUnsent(
                    job, "theme \(job.picture.theme) is not among the configured themes (\(themes))", code: .themeNotConfigured, specs: &specs,
                    transaction: &transaction, outbox: &outbox)
                continue
            }
            // `identities` was made from `workers`' keys, and nothing here removes a worker.
            workers[identity]!.inFlight.insert(job.lease)
            keyed.append(
                (job, identity, specs.cacheKey(for: job.picture, inputs: job.inputs)))
        }
        try transaction.recordCacheKeys(keyed.map { ($0.cacheKey, $0.job.lease) })
        for (job, identity, cacheKey) in keyed {
            // The worker gets the route already cut: it never receives what a privacy zone hides.
            let route: [UInt8]
            switch Self.visibleRoute(job, policy: specs.privacy.policy(for: job.owner)) {
            case .unchanged: route = job.route
            case .cut(let bytes): route = bytes
            case .whollyHidden:
                workers[identity]!.inFlight.remove(job.lease)  // Inserted above for this job.
                try failUnsent(job, "hidden by a privacy zone", code: .hiddenByPrivacy, specs: &specs, transaction: &transaction, outbox: &outbox)
                // A picture drawn before the zones shows what they hide now: it goes (its
                // by-content name goes with the released keys).
                outbox.removals.append(.picture(job.picture))
                continue
            }
            let assignment = JobAssignment(
                lease: job.lease, workoutID: job.picture.workoutID, cacheKey: cacheKey,
                spec: specs.encodedSpec(for: job.picture, inputs: job.inputs), route: route, heartRate: job.heartRate)
            outbox.worker.append((identity, .job(assignment)))
        }
    }

    /// Ends a job just leased without sending it to its worker: it fails `failed-no-retry` at once
    /// with `code`, and is reported like any other failure.
    private func failUnsent(
        _ job: LeasedJob, _ detail: String, code: FailureCode, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws {
        let report = JobReportRecord(lease: job.lease, outcome: .failedNoRetry, detail: detail, code: code)
        let effect = try complete([WorkerReport(report, from: job.worker)], specs: &specs, transaction: &transaction)[0]
        if let event = CoordinatorEvent(effect) { outbox.events.append(event) }
        outbox.tally.record(effect, renderMicroseconds: nil)
    }

    /// Counts a committed turn's changes in the metrics.
    func record(_ tally: Tally) {
        var finished = 0
        for (result, count) in tally.results {
            metrics.completed(kind: result.kind, status: result.status, count: count)
            if result.status != .pending { finished += count }
        }
        if finished > 0 { finishedCounter.add(finished) }
        for render in tally.renders { metrics.rendered(kind: render.kind, microseconds: render.microseconds) }
        for code in tally.failures { metrics.failed(code: code) }
        for (result, count) in tally.imports { metrics.imported(result, count: count) }
        metrics.deleted(workouts: tally.deletedWorkouts)
        for (cause, count) in tally.leaseLosses { metrics.leasesExpired(count, cause: cause) }
    }

    /// Folds the write-ahead log into the index file (at a clean stop).
    /// At a clean stop, after the last batch: what other coordinators would wait for is given
    /// back (``WorkoutIndexStore/leave()``), then the index is checkpointed.
    func leaveAndCheckpoint() {
        do {
            try index.leave()
        } catch {
            logger.warning("the index was left without giving back this coordinator's leases and lead; they lapse", metadata: ["error": "\(error)"])
        }
        do {
            try index.checkpoint()
        } catch {
            logger.warning("the index's write-ahead log was not folded into it; it stays beside it", metadata: ["error": "\(error)"])
        }
    }
}

extension CoordinatorMetrics.LeaseLoss {
    /// The code a job is stored with when this loss counts an attempt against it (a worker that
    /// said goodbye or was set aside counts none, so its code is never stored).
    var failureCode: FailureCode {
        switch self {
        case .deadline: .timedOut
        case .silent: .workerSilent
        case .restarted: .workerRestarted
        case .unreachable: .workerUnreachable
        case .disconnected, .setAside: .transient
        }
    }
}
