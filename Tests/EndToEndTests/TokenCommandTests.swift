import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel
import WorkFeedTokens

/// `workctl token secret` and `workctl token create`, the real executable.
@Suite struct TokenCommandTests {
    @Test func aSecretAndATokenTheGatewayAccepts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token.secret").path
        #expect(try WorkCtlProcess.run(["token", "secret", "--out", file]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try WorkCtlProcess.run(["token", "secret", "--out", file]).status == 1)
        let secret = try TokenSecret.read(file: file)
        #expect(secret.count == 64)

        let created = try WorkCtlProcess.run(["token", "create", "--owner", "alice", "--expires", "30d", "--secret-file", file])
        #expect(created.status == 0)
        let token = try OwnerToken.verify(created.output.trimmingCharacters(in: .whitespacesAndNewlines), secret: secret)
        #expect(token.owner == "alice")
        #expect(abs(token.expires.timeIntervalSinceNow - 30 * 86_400) < 60)
        let env = try WorkCtlProcess.run(
            ["token", "create", "--owner", "bob", "--expires", "2h"], environment: ["WORKFEED_TOKENS_SECRET_FILE": file])
        #expect(try OwnerToken.verify(env.output.trimmingCharacters(in: .whitespacesAndNewlines), secret: secret).owner == "bob")
        #expect(try WorkCtlProcess.run(["token", "create", "--owner", "alice", "--expires", "soon", "--secret-file", file]).status == 64)
        #expect(try WorkCtlProcess.run(["token", "create", "--owner", "", "--secret-file", file]).status == 64)
        // A number without its unit is refused with the units allowed (it once made a 30-second token).
        let bare = try WorkCtlProcess.run(["token", "create", "--owner", "alice", "--expires", "30", "--secret-file", file])
        #expect(bare.status == 64 && bare.output.isEmpty, "\(bare.output)")
        #expect(bare.errors.contains("'30' has no unit: write 30d (days), 30h (hours), 30m (minutes) or 30s (seconds)"), "\(bare.errors)")
    }
}
