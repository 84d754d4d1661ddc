import ArgumentParser
import Foundation
import WorkFeedImport
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl import PATH...`: reads workout files here and sends them to the coordinator.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import workout files (GPX, TCX, FIT, zip, Apple Health exports) and folders of them.",
            discussion: """
                Files are read on this machine and sent to the coordinator with their details (name, \
                size, SHA-256, format, reader version); the original is kept, compressed, in the \
                coordinator's cache. A file that cannot be read is reported with its line and skipped; \
                the rest of the batch goes on, and nothing already in the index changes. A copy with less \
                than the stored one (no heart rate, fewer points) leaves the stored one ("kept the richer \
                stored copy"); the same activity from another file is a duplicate, not imported unless \
                --allow-duplicates. Files in folders that are not workout files are named as ignored. \
                The summary names the owner the workouts were filed under. Exits 2 when some files were \
                skipped, or when no workout file was found.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Files or folders (searched recursively).")
        var paths: [String]

        @Flag(name: .long, help: "Print the summary as JSON.")
        var json = false

        @Flag(
            name: .long,
            help: "Import a workout even when another one is the same activity from another file (starts within a minute, tracks overlap).")
        var allowDuplicates = false

        @Option(name: .long, help: "Whose workouts these are: the app's user id (default: the coordinator's owners.default).")
        var owner: String?

        func validate() throws {
            try validateOwner(owner)
        }

        func run() throws {
            let collected: WorkoutFileReader.Collected
            do {
                collected = try WorkoutFileReader.collect(paths)
            } catch {
                printError("\(error)")
                throw WorkCtlExit.failed
            }
            let files = collected.files
            var session = ImportSession(allowDuplicates: allowDuplicates)
            session.summary.ignored = collected.ignored.map(\.path)
            session.summary.owner = owner
            session.summary.ownerIsDefault = owner == nil
            session.summary.files = files.count
            guard !files.isEmpty else {
                // Nothing to send: an empty import is not a success.
                try session.finish(json: json)
                return
            }
            var client = try connection.client()
            var progress = ProgressLine(total: files.count, unit: "files")
            for (number, file) in files.enumerated() {
                defer { progress.update(done: number + 1) }
                // One workout at a time: an Apple Health export can hold thousands, and a broken entry
                // of an archive or export is reported while the rest goes in.
                var lost: ControlClientError?
                let errors = WorkoutFileReader.readEach(contentsOf: file) { workout in
                    guard lost == nil else { return }
                    lost = session.send(workout, owner: owner, client: &client, progress: &progress)
                }
                if let lost {
                    progress.finish()
                    throw lost.exit()
                }
                for error in errors { session.skip(error, progress: &progress) }
            }
            progress.finish()
            try session.finish(json: json)
        }
    }
}
