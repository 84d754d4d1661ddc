import ArgumentParser
import Foundation
import WorkFeedImport
import WorkFeedModel
import WorkFeedWire

extension WorkCtl {
    /// `workctl import PATH...`: reads workout files here and sends them to the coordinator.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import workout files (GPX, TCX, FIT) and folders of them.",
            discussion: """
                Files are read on this machine and sent to the coordinator. A file that cannot be read \
                is reported with its line and skipped; the rest of the batch goes on, and nothing already \
                in the index changes. Exits 2 when some files were skipped.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Files or folders (searched recursively).")
        var paths: [String]

        @Flag(name: .long, help: "Print the summary as JSON.")
        var json = false

        struct Summary: Encodable {
            var imported = 0
            var unchanged = 0
            var updated = 0
            var skipped: [Skipped] = []
            struct Skipped: Encodable {
                var file: String
                var reason: String
            }
        }

        private func send(_ workout: ImportedWorkout, with client: inout ControlClient) -> Result<ImportResult, ControlClientError> {
            do {
                let reply: ImportReply = try client.request(
                    .importWorkout, ImportRequest(workout),
                    attachments: [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)])
                return .success(reply.result)
            } catch {
                return .failure(error)
            }
        }

        func run() throws {
            let files: [URL]
            do {
                files = try WorkoutFileReader.collectFiles(paths)
            } catch {
                printError("\(error)")
                throw WorkCtlExit.failed
            }
            var client = try connection.client()
            var summary = Summary()
            var progress = ProgressLine(total: files.count, unit: "files")
            for (number, file) in files.enumerated() {
                defer { progress.update(done: number + 1) }
                // One workout at a time: an Apple Health export can hold thousands, and a broken entry
                // of an archive or export is reported while the rest goes in.
                var lost: ControlClientError?
                let errors = WorkoutFileReader.readEach(contentsOf: file) { workout in
                    guard lost == nil else { return }
                    switch send(workout, with: &client) {
                    case .success(let result):
                        switch result {
                        case .imported: summary.imported += 1
                        case .unchanged: summary.unchanged += 1
                        case .updated: summary.updated += 1
                        }
                    case .failure(let error):
                        if error.fromCoordinator {
                            summary.skipped.append(.init(file: workout.origin, reason: error.description))
                            progress.note("skipped \(workout.origin): \(error)")
                        } else {
                            lost = error
                        }
                    }
                }
                if let lost {
                    progress.finish()
                    throw lost.exit()
                }
                for error in errors {
                    summary.skipped.append(.init(file: error.file, reason: error.description))
                    progress.note("skipped \(error)")
                }
            }
            progress.finish()
            if json {
                try printJSON(summary)
            } else {
                say("imported \(summary.imported), unchanged \(summary.unchanged), updated \(summary.updated), skipped \(summary.skipped.count)")
                for skipped in summary.skipped { say("  skipped \(skipped.reason)") }
            }
            if !summary.skipped.isEmpty { throw WorkCtlExit.partial }
        }
    }
}
