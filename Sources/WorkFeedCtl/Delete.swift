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
            let request = DeleteRequest(ids: ids.isEmpty ? nil : try IDPrefix.resolve(ids, client: &client), owner: owner)
            let reply: DeleteReply = try talking { () throws(ControlClientError) in try client.request(.delete, request) }
            if json {
                try printJSON(reply)
            } else {
                let whose = owner.map { " of owner \($0)" } ?? ""
                say(
                    "deleted \(reply.deleted.count) workouts\(whose): \(reply.series ?? reply.deleted.count) series, "
                        + "\(reply.jobs ?? 0) picture jobs, \(reply.pictures) picture files, \(reply.originals ?? 0) original files")
                for id in reply.missing { say("  not in the index\(owner == nil ? "" : " (or not this owner's)"): \(id)") }
            }
            if !reply.missing.isEmpty { throw WorkCtlExit.partial }
        }
    }

    /// `workctl changes --since N`: what changed after an anchor, for incremental sync.
    struct Changes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what changed after an anchor (imports, picture statuses, deletions), oldest first.",
            discussion: "Pass the printed anchor as --since next time to get only what changed since.")

        @OptionGroup var connection: ConnectionOptions

        @Option(name: .long, help: "The anchor of the last sync; 0 for everything.")
        var since: Int64 = 0

        @Option(name: .long, help: "At most this many changes per request.")
        var limit: Int = 10_000

        @Option(name: .long, help: "Only this owner's workouts (default: every owner's).")
        var owner: String?

        @Flag(name: .long, help: "Print as JSON.")
        var json = false

        func validate() throws {
            try validateOwner(owner)
            guard since >= 0 else { throw ValidationError("--since must be 0 or more") }
            guard ControlLimits.changesLimits.contains(limit) else {
                throw ValidationError("--limit must be \(ControlLimits.changesLimits.lowerBound)...\(ControlLimits.changesLimits.upperBound)")
            }
        }

        func run() throws {
            var client = try connection.client()
            var all: [WorkoutChange] = []
            var anchor = since
            var reply: ChangesReply
            repeat {
                let request = ChangesRequest(since: anchor, limit: limit, owner: owner)
                reply = try talking { () throws(ControlClientError) in try client.request(.changes, request) }
                all += reply.changes
                anchor = reply.changes.last?.anchor ?? anchor
            } while reply.more
            let final = ChangesReply(changes: all, more: false, anchor: reply.anchor)
            if json {
                try printJSON(final)
            } else {
                for change in all { say("\(change.anchor) \(change.id) \(change.change.rawValue)") }
                say("anchor: \(final.anchor)")
            }
        }
    }

    /// `workctl retry`: failed-no-retry pictures get another chance.
    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make failed-no-retry pictures pending again (after fixing what made them fail).",
            discussion: """
                Takes the same selection as enqueue (--all, --ids, --ids-from, --kind, --theme, --scale, --activity, \
                --since, --until); without --kind or --scale it retries every kind and scale. --reason narrows it to \
                failures with these codes (workctl failed --group lists them). Creates no job.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var selection: PictureSelection

        @Option(name: .long, help: "Only failures with these codes, comma-separated (e.g. cache-full,worker-silent; see workctl failed --group).")
        var reason: String?

        @OptionGroup var waiting: WaitOptions

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            for code in reasonCodes() ?? [] where !FailureCode.isWellFormed(code) {
                throw ValidationError("--reason: '\(code.escapedForDisplay)' is not a failure code (lower-case words joined by '-', as workctl failed --group prints them)")
            }
        }

        func reasonCodes() -> [String]? {
            reason.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        }

        func run() throws {
            var client = try connection.client()
            // Only pictures that exist are retried, at every scale they were made at.
            var request = try selection.request(defaultKinds: JobKind.allCases, defaultScales: [1, 2, 3], client: &client)
            request.includeFailed = true
            request.existingOnly = true
            request.reasonCodes = reasonCodes()
            let reply: EnqueueReply = try talking { () throws(ControlClientError) in try client.request(.enqueue, request) }
            if !json { say("retrying \(reply.revived) failed pictures") }
            try waiting.finish(request, reply, client: &client, json: json)
        }
    }
}
