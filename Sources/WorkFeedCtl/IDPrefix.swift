import ArgumentParser
import WorkFeedModel
import WorkFeedWire

/// Workout ids as operators type them: a whole id, or any unique prefix of one (at least four hex
/// digits, hyphens optional), as git takes commit hashes. An ambiguous prefix is an error that
/// lists the candidates.
enum IDPrefix {
    /// Checks that `text` can be a workout id or a prefix of one, naming `option` when it cannot.
    static func validate(_ text: String, option: String? = nil) throws {
        let hex = text.lowercased().filter { $0 != "-" }
        guard WorkoutID(text) != nil || ((4...32).contains(hex.count) && hex.allSatisfy(\.isHexDigit)) else {
            let label = option.map { "\($0): " } ?? ""
            throw ValidationError("\(label)'\(text)' is not a workout id or a prefix of one (at least 4 hex digits)")
        }
    }

    /// Resolves ids and prefixes to workout ids with one RESOLVE request (whole ids are taken as
    /// they are). Prints what cannot be resolved and exits: 64 for an ambiguous prefix (with the
    /// candidates), 1 for a prefix no workout has.
    static func resolve(_ texts: [String], client: inout ControlClient) throws -> [WorkoutID] {
        let prefixes = texts.filter { WorkoutID($0) == nil }
        var resolved: [String: WorkoutID] = [:]
        if !prefixes.isEmpty {
            let reply: ResolveReply = try talking { () throws(ControlClientError) in
                try client.request(.resolve, ResolveRequest(prefixes: prefixes))
            }
            var failure: ExitCode?
            for match in reply.matches {
                switch match.ids.count {
                case 1:
                    resolved[match.prefix] = match.ids[0]
                case 0:
                    printError("no workout id starts with '\(match.prefix)'")
                    failure = failure ?? WorkCtlExit.failed
                default:
                    let more = match.ids.count >= ResolveReply.candidateLimit ? " (and maybe more)" : ""
                    printError(
                        "'\(match.prefix)' is ambiguous: it starts \(match.ids.count) workout ids\(more): "
                            + match.ids.map(\.description).joined(separator: ", "))
                    failure = ExitCode(64)
                }
            }
            if let failure { throw failure }
        }
        return texts.compactMap { WorkoutID($0) ?? resolved[$0] }
    }
}
