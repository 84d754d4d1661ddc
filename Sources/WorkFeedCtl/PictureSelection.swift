import ArgumentParser
import Foundation
import WorkFeedModel
import WorkFeedWire
import WorkFeedStyle

/// Which pictures a command is about, the same for `workctl enqueue` and `workctl retry`: the
/// workouts (all, by id, or from a file), narrowed by activity and start time, and the kinds,
/// themes and scales.
struct PictureSelection: ParsableArguments {
    @Flag(name: .long, help: "Every workout in the index.")
    var all = false

    @Option(name: .long, parsing: .upToNextOption, help: "Only these workout ids (or unique prefixes).")
    var ids: [String] = []

    @Option(name: .long, help: "Read workout ids from this file, one per line ('-' for standard input).")
    var idsFrom: String?

    @Option(
        name: .long,
        help:
            "Kinds, comma-separated: \(PictureKind.described) (default: \(PictureKind.names(of: PictureKind.drawnAhead)) for enqueue, all for retry)."
    )
    var kind: CommaList<PictureKind>?

    @Option(name: .long, help: themeOptionHelp)
    var theme: CommaList<Theme>?

    @Option(name: .long, help: "Scales, comma-separated (default: the coordinator's pictures.scales for enqueue, every scale for retry).")
    var scale: String?

    @Option(name: .long, help: "Only these activities, comma-separated: running, walking, cycling, other.")
    var activity: CommaList<ActivityType>?

    @Option(name: .long, help: "Only workouts that started on or after this date (YYYY-MM-DD or ISO 8601).")
    var since: String?

    @Option(name: .long, help: "Only workouts that started before this date (YYYY-MM-DD or ISO 8601).")
    var until: String?

    func validate() throws {
        let selections = [all, !ids.isEmpty, idsFrom != nil].filter { $0 }.count
        guard selections == 1 else { throw ValidationError("give exactly one of --all, --ids ID... or --ids-from FILE") }
        _ = try Self.date(since, "--since")
        _ = try Self.date(until, "--until")
        if idsFrom != "-" { _ = try workoutIDTexts() }
        _ = try scales()
    }

    /// The request for this selection: ENQUEUE's body, which `retry` sends with `includeFailed`.
    /// Id prefixes are resolved through `client` (an ambiguous one lists its candidates).
    func request(defaultKinds: [PictureKind], defaultScales: [Int]? = nil, client: inout ControlClient) throws -> EnqueueRequest {
        var request = EnqueueRequest(
            ids: try workoutIDTexts().map { try IDPrefix.resolve($0, client: &client) }, kinds: kind?.values ?? defaultKinds,
            themes: theme?.values ?? [],
            scales: try scales() ?? defaultScales)
        request.activities = activity?.values
        request.since = try Self.date(since, "--since")
        request.until = try Self.date(until, "--until")
        return request
    }

    /// Parses `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
    static func date(_ text: String?, _ option: String) throws -> Date? {
        guard let text else { return nil }
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date }
        throw ValidationError("\(option): '\(text)' is not a date (YYYY-MM-DD or 2026-11-21T10:00:00Z)")
    }

    /// The ids and unique prefixes given, validated; `nil` for --all.
    func workoutIDTexts() throws -> [String]? {
        if all { return nil }
        if let idsFrom {
            let text: String
            if idsFrom == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                do { text = try String(contentsOfFile: idsFrom, encoding: .utf8) } catch {
                    throw ValidationError("--ids-from: cannot read \(idsFrom): \(error.localizedDescription)")
                }
            }
            var result: [String] = []
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                try IDPrefix.validate(trimmed, option: "--ids-from \(idsFrom):\(number + 1)")
                result.append(trimmed)
            }
            guard result.count <= ControlLimits.maximumEnqueueIDs else {
                throw ValidationError(
                    "--ids-from \(idsFrom): \(result.count) ids, at most \(ControlLimits.maximumEnqueueIDs) a request: split the file")
            }
            return result
        }
        for text in ids { try IDPrefix.validate(text, option: "--ids") }
        return ids
    }

    func scales() throws -> [Int]? {
        try scale.map { text in
            try text.split(separator: ",").map { part in
                guard let scale = Int(part), PictureSpec.scaleRange.contains(scale) else {
                    throw ValidationError("--scale: '\(part)' is not one of \(PictureSpec.scaleNames)")
                }
                return scale
            }
        }
    }
}
