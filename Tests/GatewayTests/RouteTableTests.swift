import Foundation
import HTTPTypes
import Testing
@testable import WorkFeedGateway

/// The gateway's endpoints are one table (issue 41): the router and the methods each path allows
/// are made from it, and docs/openapi.yaml documents exactly its paths and methods.
@Suite struct RouteTableTests {
    /// `path: [methods]` as docs/openapi.yaml writes them (`  /path:` then `    get:` lines).
    static func documented() throws -> [String: Set<String>] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/openapi.yaml")
        var paths: [String: Set<String>] = [:]
        var inPaths = false
        var current: String?
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
            } else if inPaths, !line.hasPrefix(" "), !line.isEmpty {
                inPaths = false
            } else if inPaths, line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                current = String(line.dropFirst(2).dropLast())
                paths[current!] = []
            } else if inPaths, let path = current, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let word = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "post", "put", "patch", "delete"].contains(word) { paths[path]?.insert(String(word)) }
            }
        }
        return paths
    }

    @Test func theDocumentNamesExactlyTheTablesEndpoints() throws {
        var table: [String: Set<String>] = [:]
        for endpoint in Gateway.endpoints { table[endpoint.path, default: []].insert(endpoint.method.rawValue.lowercased()) }
        let documented = try Self.documented()
        #expect(!documented.isEmpty)
        #expect(
            table == documented,
            "in the table only: \(table.filter { documented[$0.key] != $0.value }); documented only: \(documented.filter { table[$0.key] != $0.value })"
        )
    }

    @Test func everyPathAllowsItsMethodsAndHeadWithGet() {
        for (path, allowed) in Gateway.methods {
            let methods = Gateway.endpoints.filter { $0.path == path }.map(\.method)
            #expect(Set(allowed) == Set(methods + (methods.contains(.get) ? [.head] : [])), "\(path)")
        }
        #expect(Set(Gateway.methods.map(\.path)) == Set(Gateway.endpoints.map(\.path)))
    }
}
