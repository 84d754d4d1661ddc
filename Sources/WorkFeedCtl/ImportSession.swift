import Foundation
import WorkFeedImport
import WorkFeedModel
import WorkFeedWire

/// What an import (or a re-import) did, workout by workout, for the summary.
struct ImportSummary: Encodable {
    var imported = 0
    var unchanged = 0
    var updated = 0
    var refreshed = 0
    var keptRicher: [Kept] = []
    var duplicates: [Duplicate] = []
    var replacedDuplicates: [Replaced] = []
    var skipped: [Skipped] = []
    var warnings: [String] = []
    /// Files found in folders and not read: not workout files.
    var ignored: [String] = []
    /// Whose workouts these are, as the coordinator filed them (its `owners.default` when no
    /// `--owner` was given); `nil` when nothing was sent.
    var owner: String?
    /// Whether `owner` is the coordinator's default, not one given with `--owner`.
    var ownerIsDefault = false
    /// Workout files found to read (`import`); `nil` where files are not looked for (`reimport`).
    var files: Int?

    /// How many of the ignored files are named in the summary; the rest are counted.
    static let ignoredNamed = 5

    struct Kept: Encodable {
        var file: String
        var id: WorkoutID
        var reason: String
    }

    struct Duplicate: Encodable {
        var file: String
        var duplicateOf: WorkoutID
        var duplicateFile: String?
    }

    struct Replaced: Encodable {
        var file: String
        var id: WorkoutID
        var previousFile: String?
        var reason: String
    }

    struct Skipped: Encodable {
        var file: String
        var reason: String
        /// A stable code where the reason has one (`no-points`, `one-point`: ``EmptyWorkout/Code``).
        var code: String?
    }

    /// The summary as people read it: one line of counts, then a line for each workout that was
    /// kept out, each skipped file and each warning.
    var lines: [String] {
        var counts = "imported \(imported), unchanged \(unchanged), updated \(updated)"
        if refreshed > 0 { counts += ", refreshed \(refreshed)" }
        if !keptRicher.isEmpty { counts += ", kept the richer stored copy \(keptRicher.count)" }
        if !duplicates.isEmpty { counts += ", duplicates \(duplicates.count)" }
        if !replacedDuplicates.isEmpty { counts += ", richer copies replacing a duplicate \(replacedDuplicates.count)" }
        counts += ", skipped \(skipped.count)"
        if let owner {
            counts += "; owner \(owner)" + (ownerIsDefault ? " (the coordinator's owners.default: --owner names another)" : "")
        }
        var lines = [counts]
        if files == 0 {
            lines.append(
                "no workout files found: import reads .gpx, .tcx, .fit and .zip files and Apple Health exports"
                    + (ignored.isEmpty ? "" : "; \(ignored.count) other \(ignored.count == 1 ? "file" : "files") ignored"))
        }
        if !ignored.isEmpty {
            let named = ignored.prefix(Self.ignoredNamed).joined(separator: ", ")
            let more = ignored.count > Self.ignoredNamed ? " and \(ignored.count - Self.ignoredNamed) more" : ""
            lines.append("  ignored (not workout files): \(named)\(more)")
        }
        for kept in keptRicher {
            lines.append("  kept the richer stored copy of \(kept.id) instead of \(kept.file): \(kept.reason)")
        }
        for duplicate in duplicates {
            lines.append(
                "  duplicate: \(duplicate.file) is the same activity as \(duplicate.duplicateOf)"
                    + (duplicate.duplicateFile.map { " (\($0))" } ?? "") + ": not imported (--allow-duplicates keeps both)")
        }
        for replaced in replacedDuplicates {
            lines.append(
                "  richer copy: \(replaced.file) is the same activity as \(replaced.id)"
                    + (replaced.previousFile.map { " (\($0))" } ?? "") + " and took its place: \(replaced.reason)")
        }
        for skipped in skipped { lines.append("  skipped \(skipped.reason)") }
        for warning in warnings { lines.append("  warning: \(warning)") }
        return lines
    }
}

/// Sends workouts to the coordinator one at a time, each with its file's details, and the
/// original file (gzip-compressed) with the first workout of each file, so that the coordinator
/// keeps it beside the pictures.
struct ImportSession {
    var summary = ImportSummary()
    let allowDuplicates: Bool
    /// Files whose original was sent in this session: later workouts of the same file do not carry it again.
    private var sentOriginals = Set<String>()

    init(allowDuplicates: Bool) {
        self.allowDuplicates = allowDuplicates
    }

    /// Sends one workout of `owner` (`nil`: the coordinator's default owner) and records the outcome.
    /// A workout with nothing to show (``WorkFeedModel/ImportedWorkout/emptiness``) is not sent:
    /// skipped with its code, for `import` and `reimport` alike (a stored workout that `reimport`
    /// reads as empty stays as it is stored: docs/import.md, "Nothing to show").
    /// - Returns: the error when the coordinator could not be reached (the import cannot go on);
    ///   `nil` otherwise, the coordinator's refusals and messages too large to send included (those
    ///   skip the workout with their reason, and their code where they have one).
    mutating func send(_ workout: ImportedWorkout, owner: String?, client: inout ControlClient, progress: inout ProgressLine) -> ControlClientError? {
        if let empty = workout.emptiness {
            skip(empty, progress: &progress)
            return nil
        }
        for warning in workout.warnings {
            summary.warnings.append(warning.description)
            progress.note("warning: \(warning)")
        }
        let series = [SeriesCodec.encode(workout.route), SeriesCodec.encode(workout.heartRate)]
        var attachments = series
        var withOriginal = false
        // Kept once per content, whoever the owner.
        if let file = workout.file, let original = workout.original, !sentOriginals.contains(file.sha256) {
            attachments.append(Gzip.compress(original))
            withOriginal = true
        }
        let request = ImportRequest(workout, owner: owner, allowDuplicates: allowDuplicates)
        var reply: ImportReply
        do {
            do {
                reply = try client.request(.importWorkout, request, attachments: attachments)
            } catch let error where error.isTooLarge && withOriginal {
                // The workout fits without its file: import it, and say the original is not kept.
                reply = try client.request(.importWorkout, request, attachments: series)
                summary.warnings.append("\(workout.origin): the original file is too large to keep; the workout is imported without it")
            }
        } catch {
            if error.fromCoordinator || error.isTooLarge {
                // The coordinator's own refusal of an empty workout (a rule newer than this workctl's) keeps its code.
                let code = error.code == .emptyWorkout ? error.reason : nil
                summary.skipped.append(.init(file: workout.origin, reason: "\(workout.origin): \(error.description)", code: code))
                progress.note("skipped \(workout.origin): \(error)")
                return nil
            }
            return error
        }
        // A duplicate's or a poorer copy's original is not kept: the next workout of its file sends it again.
        if withOriginal, reply.result != .duplicate, reply.result != .keptRicher, let file = workout.file {
            sentOriginals.insert(file.sha256)
        }
        if let filed = reply.owner { summary.owner = filed }
        switch reply.result {
        case .imported: summary.imported += 1
        case .unchanged: summary.unchanged += 1
        case .updated: summary.updated += 1
        case .refreshed: summary.refreshed += 1
        case .keptRicher:
            summary.keptRicher.append(.init(file: workout.origin, id: reply.id, reason: reply.reason ?? "it has less"))
        case .duplicate:
            if let original = reply.duplicateOf {
                summary.duplicates.append(.init(file: workout.origin, duplicateOf: original, duplicateFile: reply.duplicateFile))
            }
        case .replacedDuplicate:
            summary.replacedDuplicates.append(
                .init(file: workout.origin, id: reply.id, previousFile: reply.duplicateFile, reason: reply.reason ?? "it has more"))
        }
        return nil
    }

    /// Prints the summary (as JSON with `json`); exits 2 when something was skipped or no
    /// workout file was found.
    func finish(json: Bool) throws {
        if json {
            try printJSON(summary)
        } else {
            summary.lines.forEach(say)
        }
        if !summary.skipped.isEmpty || summary.files == 0 { throw WorkCtlExit.partial }
    }

    /// Records a workout with neither a track nor a figure, which is not sent: the reason the
    /// gateway's upload gives (docs/import.md, "Nothing to show").
    mutating func skip(_ empty: EmptyWorkout, progress: inout ProgressLine) {
        summary.skipped.append(.init(file: empty.origin, reason: empty.description, code: empty.code.rawValue))
        progress.note("skipped \(empty)")
    }

    /// Records a file or part that could not be read.
    mutating func skip(_ error: ImportError, progress: inout ProgressLine) {
        summary.skipped.append(.init(file: error.file, reason: error.description))
        progress.note("skipped \(error)")
    }
}
