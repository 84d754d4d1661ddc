import ArgumentParser
import Foundation
import Logging
import WorkFeedIndex
import WorkFeedIndexPostgres

extension WorkCtl {
    /// `workctl index`: the index itself, with its coordinator stopped.
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Work on the index itself (its coordinator stopped).", subcommands: [Copy.self])
    }
}

extension WorkCtl.Index {
    /// `workctl index copy --from index.sqlite --to postgres://…`: moves a SQLite index into an
    /// empty PostgreSQL database (docs/operations.md, "Moving to PostgreSQL").
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a SQLite index into an empty PostgreSQL database, everything in it.",
            discussion: """
                Stop the coordinator first: the index is opened as the coordinator opens it (its lock taken, \
                its schema brought up to date). Workouts, series, jobs and their statuses, picture keys, \
                tombstones, privacy zones, settings, withdrawn keys, summaries, the privacy secret and the \
                anchors are copied in one transaction; a database that already holds an index is refused, \
                and a copy that fails leaves the database as it was. Afterwards point the coordinators' \
                index.url at the database: the same feed, statuses, summaries and CHANGES come back, and \
                clients go on from their last anchor.
                """)

        @Option(name: .long, help: "The SQLite index file (index.path).")
        var from: String = "var/index.sqlite"

        @Option(name: .long, help: "The PostgreSQL database: postgres://user@host:port/database (sslmode=..., host=/socket/dir).")
        var to: String

        @Option(name: .long, help: "A file whose first line is the database password (default: WORKFEED_INDEX_PASSWORD_FILE).")
        var passwordFile: String?

        func run() throws {
            let logger = Logger(label: "workfeed.workctl.index-copy")
            do throws(IndexError) {
                let passwordFile = passwordFile ?? ProcessInfo.processInfo.environment["WORKFEED_INDEX_PASSWORD_FILE"]
                let location = try PostgresIndexLocation(url: to, passwordFile: passwordFile.flatMap { $0.isEmpty ? nil : $0 })
                guard FileManager.default.fileExists(atPath: from) else {
                    throw IndexError(.unavailable, "there is no index at \(from) (--from)")
                }
                let index = try WorkoutIndex(path: from, logger: logger)
                let session = try PostgresSession.connect(to: location, name: "workctl index copy", logger: logger)
                defer { session.close() }
                let started = ContinuousClock.now
                let copied = try PostgresIndexCopy.copy(index, to: session, appliedBy: "workctl index copy") { table, count in
                    print("\(table): \(count) rows")
                }
                let seconds =
                    Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                    + Double((ContinuousClock.now - started).components.seconds)
                let rows = copied.rows.map(\.count).reduce(0, +)
                print(
                    "copied \(from) into \(location) in \(String(format: "%.1f", seconds)) s: \(rows) rows; CHANGES goes on after anchor \(copied.anchor)"
                )
            } catch {
                printError("cannot copy the index: \(error)")
                throw error.code == .unavailable || error.code == .locked ? WorkCtlExit.unavailable : WorkCtlExit.failed
            }
        }
    }
}
