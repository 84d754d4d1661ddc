import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl delete ID...`: removes workouts, their series, jobs and pictures;
    /// `workctl delete --owner ID`: every workout of an owner (a user leaving the app).
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete workouts with their series, jobs and pictures (the cache files too).",
            discussion: """
                With --owner and no ids, erases every workout of that owner: series, jobs, picture \
                files and the kept original files no other workout came from, and says what it \
                removed. With --owner and ids, deletes those ids only if they are that owner's. \
                Exits 2 when some ids were not in the index (or not the owner's); the others are deleted.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Workout ids, or unique prefixes of them.")
        var ids: [String] = []

        @Option(name: .long, help: "The owner whose workouts go (all of them without ids).")
        var owner: String?

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            guard !ids.isEmpty || owner != nil else { throw ValidationError("give workout ids, --owner ID, or both") }
            for text in ids { try IDPrefix.validate(text) }
        }

        func run() throws {
            var client = try connection.client()
            let request = DeleteRequest(ids: ids.isEmpty ? nil : try IDPrefix.resolve(ids, client: &client), owner: owner, progress: true)
            // A large delete is done in steps: the coordinator reports each, and the timeout is
            // one of silence between reports, not of the whole delete.
            var progress: ProgressLine?
            let reply: DeleteReply = try talking { () throws(ControlClientError) in
                try client.request(.delete, request, as: DeleteReply.self) { step in
                    if progress == nil { progress = ProgressLine(total: step.total, unit: step.unit) }
                    progress?.update(done: step.done, total: step.total)
                }
            }
            if var progress {
                progress.update(done: reply.deleted.count + reply.missing.count, total: reply.deleted.count + reply.missing.count)
                progress.finish()
            }
            if json {
                try printJSON(reply)
            } else {
                let whose = owner.map { " of owner \($0)" } ?? ""
                say(
                    "deleted \(counted(reply.deleted.count, "workout"))\(whose): \(reply.series ?? reply.deleted.count) series, "
                        + "\(counted(reply.jobs ?? 0, "picture job")), \(counted(reply.pictures, "picture file")), "
                        + counted(reply.originals ?? 0, "original file"))
                for id in reply.missing { say("  not in the index\(owner == nil ? "" : " (or not this owner's)"): \(id)") }
            }
            if !reply.missing.isEmpty { throw WorkCtlExit.partial }
        }
    }
}
