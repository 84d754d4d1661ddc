import Crypto
import CryptoExtras
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel
import WorkFeedTokens

/// Tokens signed by an account system with a private key: ES256 (EC P-256) and RS256 (RSA), checked
/// with its public key; the token never chooses an algorithm the gateway is not configured with.
@Suite(.serialized) struct PublicKeyTokenTests {
    static func token(owner: String, algorithm: String, sign: (Data) throws -> Data) rethrows -> String {
        let claims = #"{"exp":\#(Int(Date().timeIntervalSince1970) + 3600),"sub":"\#(owner)"}"#
        let input = Base64URL.encode(Array(#"{"alg":"\#(algorithm)","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try sign(Data(input.utf8)))
    }

    static func keyFile(_ pem: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-public-\(UUID().uuidString).pem").path
        try pem.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func es256TokensAreCheckedWithTheConfiguredPublicKey() async throws {
        let key = P256.Signing.PrivateKey()
        let file = try Self.keyFile(key.publicKey.pemRepresentation)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let system = try await GatewaySystem(reach: .router, workers: 0) { $0.tokenPublicKeyFile = file }
        do {
            let good = try Self.token(owner: "alice", algorithm: "ES256") { try key.signature(for: SHA256.hash(data: $0)).rawRepresentation }
            #expect(try await system.call("GET", "/v1/feed", token: good).status == 200)
            let other = P256.Signing.PrivateKey()
            let forged = try Self.token(owner: "alice", algorithm: "ES256") { try other.signature(for: SHA256.hash(data: $0)).rawRepresentation }
            #expect(try await system.call("GET", "/v1/feed", token: forged).status == 401)
            // The secret is configured too (GatewaySystem's): HS256 tokens still work beside ES256.
            #expect(try await system.call("GET", "/v1/feed", token: system.token("alice")).status == 200)
            // An algorithm this gateway is not configured with is refused, whatever the signature.
            let rs = Self.token(owner: "alice", algorithm: "RS256") { _ in Data(repeating: 1, count: 256) }
            let refused = try await system.call("GET", "/v1/feed", token: rs)
            #expect(refused.status == 401 && (refused.json["detail"] as? String ?? "").contains("accepts HS256, ES256"))
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func rs256TokensAreCheckedWithTheConfiguredPublicKey() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let file = try Self.keyFile(key.publicKey.pemRepresentation)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let system = try await GatewaySystem(reach: .router, workers: 0) { $0.tokenPublicKeyFile = file }
        do {
            let good = try Self.token(owner: "bob", algorithm: "RS256") {
                try key.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation
            }
            #expect(try await system.call("GET", "/v1/feed", token: good).status == 200)
            let tampered = good.dropLast(3) + (good.hasSuffix("AAA") ? "BBB" : "AAA")
            #expect(try await system.call("GET", "/v1/feed", token: String(tampered)).status == 401)
            // An ES256 token against an RSA key: not an algorithm of this gateway.
            let es = Self.token(owner: "bob", algorithm: "ES256") { _ in Data(repeating: 1, count: 64) }
            #expect(try await system.call("GET", "/v1/feed", token: es).status == 401)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func aPublicKeyFileThatIsNotOneIsRefusedAtStart() async throws {
        let file = try Self.keyFile("-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        await #expect(throws: (any Error).self) { _ = try await GatewaySystem(reach: .router, workers: 0) { $0.tokenPublicKeyFile = file } }
        // And the configuration names a missing file.
        do {
            _ = try await GatewayConfiguration.load(file: nil, environment: [:], overrides: ["tokens.public_key_file": "/nonexistent.pem"])
            Issue.record("accepted a missing public key file")
        } catch {
            #expect(error.key == "tokens.public_key_file")
        }
    }
}
