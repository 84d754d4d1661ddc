import Foundation
import Testing

/// The problem types the gateway answers are the ones docs/openapi.yaml lists (its `Problem`
/// schema's `type` enum): a new `Problem("name", …)` in the gateway's sources that the document
/// does not list fails here, as does a listed type nothing answers any more. (schemathesis in CI
/// found three missing ones only after the fact: `bad-idempotency-key`, `idempotency-key-reused`,
/// `too-many-reads`.)
@Suite struct ProblemTypeTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every name given to `Problem(` or `.badRequest(` in Sources/WorkFeedGateway (the
    /// constructors that take a type's name; the others, `.unavailable()` and the like, make
    /// theirs with `Problem(`), the argument on the same line or the next.
    static func answered() throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: #"(?:Problem|\.badRequest)\(\s*"([a-z][a-z-]*)""#)
        var names = Set<String>()
        let sources = package.appendingPathComponent("Sources/WorkFeedGateway")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// The `urn:workfeed:problem:<name>` entries of docs/openapi.yaml.
    static func documented() throws -> Set<String> {
        let text = try String(contentsOf: package.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let prefix = "- urn:workfeed:problem:"
        return Set(
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix(prefix) }
                .map { String($0.dropFirst(prefix.count)) })
    }

    @Test func theDocumentListsExactlyTheTypesTheGatewayAnswers() throws {
        let answered = try Self.answered()
        let documented = try Self.documented()
        #expect(answered.count > 20 && documented.count > 20, "both were read")
        #expect(answered.subtracting(documented).isEmpty, "answered, not documented: \(answered.subtracting(documented).sorted())")
        #expect(documented.subtracting(answered).isEmpty, "documented, never answered: \(documented.subtracting(answered).sorted())")
    }
}
