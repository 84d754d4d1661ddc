import ArgumentParser
import Foundation
import WorkFeedImport
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl reimport`: reads kept originals again with this workctl's readers.
    struct Reimport: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read workouts again from their kept original files, after the importers improved.",
            discussion: """
                Each workout's original file (kept compressed by the coordinator at import, in its originals.directory) is \
                fetched, checked against its SHA-256, read with this workctl's readers and imported \
                again under the same identity. A workout whose series come out the same keeps its route \
                version (its figures and file details are refreshed if they changed); one whose series \
                changed gets a new route version and its pictures are drawn again. Workouts imported \
                before files were remembered, or whose original is not kept, are listed and left as \
                they are. Exits 2 when some could not be read again.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Every workout in the index.")
        var all = false

        @Option(name: .long, parsing: .upToNextOption, help: "Only these workout ids (or unique prefixes).")
        var ids: [String] = []

        @Flag(name: .long, help: "Print the summary as JSON.")
        var json = false

        func validate() throws {
            guard all != !ids.isEmpty else { throw ValidationError("give either --all or --ids ID...") }
            for text in ids { try IDPrefix.validate(text, option: "--ids") }
        }

        func run() throws {
            var client = try connection.client()
            let workouts =
                try all
                ? Self.everyWorkout(&client)
                : try IDPrefix.resolve(ids, client: &client).map { id in
                    let reply: ShowReply = try talking { () throws(ControlClientError) in try client.request(.show, ShowRequest(id: id)) }
                    return reply.item.workout
                }
            var session = ImportSession(allowDuplicates: false)
            // One read per file, however many workouts came from it.
            var byFile: [String: [WorkoutRecord]] = [:]
            var order: [String] = []
            for workout in workouts {
                guard let file = workout.file, workout.originalKept == true else {
                    session.summary.skipped.append(
                        .init(
                            file: workout.file?.name ?? workout.id.description,
                            reason: "\(workout.id): "
                                + (workout.file == nil
                                    ? "imported before files were remembered: import its file again instead"
                                    : "its original file (\(workout.file?.name ?? "")) is not kept")))
                    continue
                }
                if byFile[file.sha256] == nil { order.append(file.sha256) }
                byFile[file.sha256, default: []].append(workout)
            }
            var progress = ProgressLine(total: order.count, unit: "files")
            for (number, hash) in order.enumerated() {
                defer { progress.update(done: number + 1) }
                guard let group = byFile[hash], let first = group.first else { continue }
                // Matched by identity, not by id: a copy that replaced a poorer duplicate keeps the
                // id that copy's identity gave. Several owners may have imported the same file:
                // each gets its own workouts read again.
                let wanted = Set(group.map { WorkoutIdentity(owner: $0.owner, source: $0.source, sourceID: $0.sourceID) })
                let owners = Set(group.map(\.owner)).sorted()
                let bytes: [UInt8]
                let file: WorkoutFile
                do {
                    (file, bytes) = try Self.original(of: first.id, client: &client)
                } catch let error as ControlClientError where !error.fromCoordinator {
                    progress.finish()
                    throw error.exit()
                } catch {
                    session.summary.skipped.append(.init(file: first.file?.name ?? "", reason: "\(first.file?.name ?? ""): \(error)"))
                    progress.note("skipped \(first.file?.name ?? ""): \(error)")
                    continue
                }
                let batch = WorkoutFileReader.readAll(bytes: bytes, file: file.name)
                for error in batch.errors { session.skip(error, progress: &progress) }
                for var workout in batch.workouts {
                    workout.original = nil  // the coordinator has it
                    for owner in owners {
                        guard let identity = WorkoutIdentity(of: workout, owner: owner), wanted.contains(identity) else { continue }
                        if let lost = session.send(workout, owner: owner, client: &client, progress: &progress) {
                            progress.finish()
                            throw lost.exit()
                        }
                    }
                }
            }
            progress.finish()
            try session.finish(json: json)
        }

        /// Every workout of the index, through the feed, a thousand at a time.
        static func everyWorkout(_ client: inout ControlClient) throws -> [WorkoutRecord] {
            var workouts: [WorkoutRecord] = []
            var cursor: String?
            repeat {
                let request = FeedRequest(limit: 1000, cursor: cursor)
                let page: FeedReply = try talking { () throws(ControlClientError) in try client.request(.feed, request) }
                workouts += page.items.map(\.workout)
                cursor = page.next
            } while cursor != nil
            return workouts
        }

        /// Fetches a workout's kept original, decompresses it and checks its size and SHA-256.
        static func original(of id: WorkoutID, client: inout ControlClient) throws -> (WorkoutFile, [UInt8]) {
            let (body, attachments) = try client.requestWithAttachments(.original, OriginalRequest(id: id))
            let reply = try ControlCodec.decode(OriginalReply.self, from: body)
            guard let compressed = attachments.first else { throw ReimportError("the coordinator sent no file") }
            let limit = Int(clamping: max(0, reply.file.size))
            let bytes = try Gzip.decompress(compressed, limit: limit, name: reply.file.name)
            guard bytes.count == limit, SHA256.hex(bytes) == reply.file.sha256 else {
                throw ReimportError("the kept original does not match its recorded size and SHA-256: not read")
            }
            return (reply.file, bytes)
        }
    }
}

/// A kept original that cannot be read again.
struct ReimportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
