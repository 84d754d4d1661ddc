public import Foundation
public import WorkFeedModel

// What an ENQUEUE does (docs/architecture.md, "The index behind its contract"), written once for
// every index: the steps and how they are counted. A backend provides the steps over its rows
// (``EnqueueStorage``), each for one picture of the request over the workouts it selects.

/// One picture (kind, theme, scale) of an enqueue, over the workouts its request selects.
public struct EnqueuePicture: Sendable {
    public let kind: PictureKind
    public let theme: Theme
    public let scale: Int
    public let request: EnqueueRequest
    /// The priority the jobs it creates or changes take.
    public var priority: Int { request.priority ?? 0 }
}

/// The steps of an enqueue over one backend's rows, each for one picture (``Scope``: the picture
/// with what the backend needs to reach its jobs, an anchor of its own among them).
public protocol EnqueueStorage {
    associatedtype Scope

    /// The scope of one picture of the request; every job its steps create or change takes the
    /// one anchor it takes now.
    mutating func enqueueScope(_ picture: EnqueuePicture, now: Date) -> Scope
    /// Creates the missing jobs, `pending`, of the selected workouts that have what the kind
    /// needs (``PictureKind/workoutCondition``); how many.
    mutating func createMissingJobs(_ scope: Scope) throws -> Int
    /// Remembers the picture for each selected workout that lacks what its kind needs
    /// (`picture_wanted`, at the highest priority asked so far).
    mutating func rememberWanted(_ scope: Scope, lacking condition: String) throws
    /// How many selected workouts lack what `condition` says.
    func countLacking(_ scope: Scope, lacking condition: String) throws -> Int
    /// The scope's jobs pending before this step (not those it just created or made pending),
    /// and its failed ones.
    func countWaitingAndFailed(_ scope: Scope) throws -> (alreadyPending: Int, failed: Int)
    /// Each generated job of the scope with what its current key is made of.
    func generatedJobs(
        _ scope: Scope,
        _ body: (_ job: Int64, _ workout: WorkoutID, _ key: String?, _ inputs: PictureInputs) throws -> Void
    ) throws
    /// The scope's failed jobs to try again: all, or those of the codes the request names.
    func failedToRevive(_ scope: Scope) throws -> [Int64]
    /// Generated jobs become pending again at the request's priority, attempts and failures forgotten.
    mutating func makePending(stale: [Int64], _ scope: Scope) throws
    /// Failed jobs become pending again, ready at once, attempts and failures forgotten.
    mutating func revive(_ ids: [Int64], _ scope: Scope) throws
    /// The scope's pending jobs below the request's priority are raised to it.
    mutating func raisePriority(_ scope: Scope) throws
    /// The owners with pending jobs above priority 0.
    func ownersWithInteractiveJobs() throws -> [String]
    /// Keeps the first `bound` of `owner`'s pending jobs above priority 0 (the highest priority
    /// first; within one, the pictures of `preferring`'s workouts, then the oldest) and makes the
    /// rest bulk work (priority 0); how many became bulk work.
    mutating func boundInteractive(owner: String, bound: Int, preferring ids: [WorkoutID]?) throws -> Int
}

extension EnqueueStorage {
    /// Makes sure the requested pictures exist and are current: missing jobs are created `pending`,
    /// `generated` ones whose cache key no longer matches their inputs become `pending` again.
    /// `failed-no-retry` jobs are left as they are unless the request revives them. Pictures of
    /// workouts that lack what their kind needs (``PictureKind/needs``: a heatmap of a workout
    /// without heart-rate samples) are not queued: they are remembered, and a re-import that
    /// brings the input queues them; those lacking heart rate are counted in
    /// ``EnqueueReply/skippedNoHeartRate``.
    ///
    /// For each kind, theme and scale asked for, with an anchor of its own, in this order: the
    /// missing jobs created (unless the request is for existing jobs only) and the pictures of
    /// workouts lacking an input remembered; the jobs already pending and the failures counted;
    /// the generated jobs sorted by whether their key is current; with `includeFailed`, the
    /// failures to revive (of the codes asked for); the stale made pending and the failures
    /// revived; with a priority above 0 (an interactive request), what is waiting raised. Then,
    /// once for the whole request, each owner it concerns bounded (``boundInteractive(owner:bound:preferring:)``):
    /// an owner's first `interactivePerOwner` pending pictures above priority 0 keep their
    /// priority, the rest wait as bulk work (issue 23, finding 6).
    /// - Parameter cacheKey: the current cache key of a picture given its route and heart-rate
    ///   hashes and its workout's owner (whose privacy zones it hides).
    /// - Parameter interactivePerOwner: how many pending pictures of one owner may wait above
    ///   priority 0 (configuration's `jobs.interactive_per_owner`).
    public mutating func enqueue(
        _ request: EnqueueRequest, scales: [Int], now: Date = Date(), interactivePerOwner: Int = EnqueueRequest.defaultInteractivePerOwner,
        cacheKey: CacheKeyFunction
    ) throws -> EnqueueReply {
        var reply = EnqueueReply()
        for kind in request.kinds {
            for theme in request.themes {
                for scale in request.scales ?? scales {
                    let scope = enqueueScope(EnqueuePicture(kind: kind, theme: theme, scale: scale, request: request), now: now)
                    if request.existingOnly != true {
                        reply.created += try createMissingJobs(scope)
                        if let condition = kind.workoutCondition {
                            try rememberWanted(scope, lacking: condition)
                            if kind.usesHeartRate, reply.skippedNoHeartRate == nil, let lacking = PictureInput.heartRate.workoutCondition {
                                reply.skippedNoHeartRate = try countLacking(scope, lacking: lacking)
                            }
                        }
                    }
                    let waiting = try countWaitingAndFailed(scope)
                    reply.alreadyPending += waiting.alreadyPending
                    var stale: [Int64] = []
                    try generatedJobs(scope) { job, workout, key, inputs in
                        let picture = PictureID(workoutID: workout, kind: kind, theme: theme, scale: scale)
                        if key == cacheKey(picture, inputs) { reply.current += 1 } else { stale.append(job) }
                    }
                    let revived = request.includeFailed == true ? try failedToRevive(scope) : []
                    try makePending(stale: stale, scope)
                    reply.stale += stale.count
                    try revive(revived, scope)
                    reply.revived += revived.count
                    // Failures left as they are: all of them, or those whose code was not asked for.
                    reply.failed += waiting.failed - revived.count
                    if let priority = request.priority, priority > 0 { try raisePriority(scope) }
                }
            }
        }
        if let priority = request.priority, priority > 0 {
            // The gateway always names the owner; an operator's request without one may concern
            // any owner with interactive pictures waiting.
            var bulk = 0
            for owner in try request.owner.map({ [$0] }) ?? ownersWithInteractiveJobs() {
                bulk += try boundInteractive(owner: owner, bound: interactivePerOwner, preferring: request.ids)
            }
            if bulk > 0 { reply.queuedAsBulk = bulk }
        }
        return reply
    }
}
