import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
import WorkFeedWire

extension Dispatcher {
    /// Workouts a DELETE removes in one turn of the index thread. An owner leaving with thousands
    /// of workouts is deleted over several turns, so that dispatch, imports and other clients go
    /// on meanwhile and the client hears of progress well within its timeout (issue 25: 5,002
    /// workouts in one step took longer than workctl's 15 s).
    static var deleteStep: Int { 250 }

    /// One step of a DELETE: up to ``deleteStep`` of its workouts, with their series, jobs and
    /// pictures (the files once the batch commits), and the kept originals no other workout came
    /// from. When workouts remain, the request goes on in the next batch (``Outbox/continuing``)
    /// with what was done so far, and a client that asked for progress gets a PROGRESS reply;
    /// the last step answers with the totals. With `owner` alone, the last step also removes the
    /// owner's privacy zones and settings.
    ///
    /// Each step commits on its own: a coordinator stopped in the middle has deleted the steps
    /// before, and the same DELETE again deletes the rest.
    func deleteStep(
        _ work: ControlWork, specs: inout PictureSpecs, transaction: inout Index.Transaction, outbox: inout Outbox
    ) throws -> ControlReply? {
        let request = work.request
        let body = try decode(DeleteRequest.self, request)
        let owner = try checkOwner(body.owner, "DELETE")
        var done = work.carried ?? DeleteReply(deleted: [], missing: [], pictures: 0, series: 0, jobs: 0, originals: 0)
        // What is left: the given ids past those already handled, or the owner's workouts now.
        let remaining: [WorkoutID]
        switch (body.ids, owner) {
        case (let given?, _):
            guard given.count <= ControlLimits.maximumDeleteIDs else {
                throw ControlRequestError("DELETE: ids has \(given.count) entries, at most \(ControlLimits.maximumDeleteIDs) a request")
            }
            remaining = Array(given.dropFirst(done.deleted.count + done.missing.count))
        case (nil, let owner?): remaining = try transaction.reader.workoutIDs(owner: owner)
        case (nil, nil): throw ControlRequestError("DELETE needs ids, an owner, or both")
        }
        // A request with a deadline (the gateway's, one id) stays all or nothing: "expired" must
        // keep meaning that nothing was done.
        let step = request.deadline == nil ? Self.deleteStep : Int.max
        let ids = Array(remaining.prefix(step))
        let isLast = remaining.count <= step

        let files = try transaction.reader.fileHashes(of: ids)
        // What the reply counts, from the index: this thread never waits for the store (a bucket
        // that stalled held every reply of the coordinator, a HEAD per picture and original).
        let drawn = try transaction.reader.pictures(of: ids).values.joined().filter { $0.status == .generated }.count
        let kept = try transaction.reader.keptOriginals(of: ids)
        let deleted = try transaction.delete(ids, owner: owner)
        if isLast, body.ids == nil, let owner {
            // The owner is leaving: their privacy zones go with their workouts.
            _ = try transaction.removePrivacyZones(owner: owner)
            try transaction.forgetWithdrawnPictures(owner: owner)
            specs.privacy.setZones([], of: owner)
            // And their settings.
            _ = try transaction.removeOwnerSettings(owner: owner)
            specs.heartRateZones.set(nil, of: owner)
        }
        // The files go once the deletion is committed: the pictures, and the originals no
        // other workout came from.
        let jobs = Array(deleted.values.joined())
        let unreferenced = try transaction.reader.unreferencedFiles(files)
        // Every unreferenced file's original goes (one never kept is no file: nothing to do).
        outbox.removals += jobs.map(Removal.picture) + unreferenced.filter(OriginalFileStore.isValidHash).map(Removal.original)
        let originalFiles = unreferenced.filter(kept.contains)
        for id in ids where deleted[id] != nil { outbox.events.append(.workout(WorkoutEvent(workoutID: id, change: "deleted", owner: owner))) }
        outbox.tally.deletedWorkouts += deleted.count

        done.deleted += ids.filter { deleted[$0] != nil }
        done.missing += ids.filter { deleted[$0] == nil }
        done.pictures += drawn
        done.series = (done.series ?? 0) + deleted.count
        done.jobs = (done.jobs ?? 0) + jobs.count
        done.originals = (done.originals ?? 0) + originalFiles.count

        guard isLast else {
            var next = work
            next.carried = done
            outbox.continuing.append(next)
            let finished = done.deleted.count + done.missing.count
            logger.debug("workouts deleted, a step", metadata: ["done": "\(finished)", "left": "\(remaining.count - ids.count)"])
            guard body.progress == true else { return nil }
            return .progress(id: request.id, ControlProgress(done: finished, total: finished + remaining.count - ids.count, unit: "workouts"))
        }
        logger.info(
            "workouts deleted",
            metadata: [
                "workouts": "\(done.deleted.count)", "jobs": "\(done.jobs ?? 0)", "pictures": "\(done.pictures)",
                "originals": "\(done.originals ?? 0)", "owner": "\(owner ?? "(any)")",
            ])
        return ControlReply(id: request.id, ok: true, body: try ControlCodec.encode(done))
    }
}
