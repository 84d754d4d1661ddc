import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel

/// The gateway's configuration follows the daemons' rules: flags over environment over file over
/// defaults, and a bad value names the key, the value, what is allowed and where it came from.
@Suite struct GatewayConfigurationTests {
    static let secret = ["WORKFEED_TOKENS_SECRET": String(repeating: "s", count: 32)]

    @Test func theShippedFileLoadsAndEqualsTheEmbeddedDefaults() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var loaded = try await GatewayConfiguration.load(file: root.appendingPathComponent("Config/gateway.yaml").path, environment: Self.secret)
        #expect(loaded.tokenSecret == String(repeating: "s", count: 32))
        loaded.tokenSecret = ""
        #expect(loaded == GatewayConfiguration())
    }

    @Test func flagsBeatEnvironmentBeatFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-gateway-\(UUID().uuidString).yaml")
        try "listen: 127.0.0.1:9000\ncache:\n  directory: file-cache\nuploads:\n  max_bytes: 4096\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let loaded = try await GatewayConfiguration.load(
            file: url.path, environment: Self.secret.merging(["WORKFEED_CACHE_DIRECTORY": "env-cache", "WORKFEED_LISTEN": "127.0.0.1:9001"]) { $1 },
            overrides: ["listen": "127.0.0.1:9002"])
        #expect(loaded.listen == "127.0.0.1:9002" && loaded.cacheDirectory == "env-cache" && loaded.uploadMaximumBytes == 4096)
    }

    @Test(arguments: [
        ("listen", "everywhere", "listen"),
        ("coordinator.control", "http://x", "coordinator.control"),
        ("uploads.max_bytes", "12", "uploads.max_bytes"),
        ("uploads.request_kinds", "portrait", "uploads.request_kinds"),
        ("tokens.secret", "short", "tokens.secret"),
        ("pictures.max_wait_seconds", "600", "pictures.max_wait_seconds"),
    ])
    func aBadValueIsNamed(key: String, value: String, named: String) async throws {
        do {
            _ = try await GatewayConfiguration.load(file: nil, environment: Self.secret, overrides: [key: value])
            Issue.record("accepted \(key) = \(value)")
        } catch {
            #expect(error.key == named)
            #expect(error.file == "a command-line flag")
        }
    }

    @Test func aSecretIsRequired() async throws {
        await #expect(throws: ConfigurationError.self) { _ = try await GatewayConfiguration.load(file: nil, environment: [:]) }
    }
}
