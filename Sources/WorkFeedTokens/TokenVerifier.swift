import Crypto
import CryptoExtras
import Foundation
import WorkFeedModel

/// Checks bearer tokens with what the gateway is configured with: an HS256 secret, and/or the
/// public key of an account system that signs with a private key (ES256: an EC P-256 key; RS256:
/// an RSA key of 2048 bits or more), as PEM. A token is accepted only with an algorithm that is
/// configured; the token never chooses one on its own.
public struct TokenVerifier: Sendable {
    let secret: [UInt8]?
    let ecKey: P256.Signing.PublicKey?
    let rsaKey: _RSA.Signing.PublicKey?

    /// - Parameter publicKeyPEM: an EC P-256 or RSA public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``TokenKeyError`` when the PEM is neither, or an RSA key is too short.
    public init(secret: [UInt8]?, publicKeyPEM: String?) throws {
        self.secret = secret.flatMap { $0.isEmpty ? nil : $0 }
        guard let publicKeyPEM else {
            ecKey = nil
            rsaKey = nil
            return
        }
        if let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) {
            ecKey = key
            rsaKey = nil
        } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM) {
            guard key.keySizeInBits >= 2048 else {
                throw TokenKeyError("an RSA key of \(key.keySizeInBits) bits; at least 2048")
            }
            ecKey = nil
            rsaKey = key
        } else {
            throw TokenKeyError("not an EC P-256 or RSA public key in PEM (-----BEGIN PUBLIC KEY-----)")
        }
    }

    /// The algorithms tokens may use here.
    public var algorithms: [String] {
        (secret == nil ? [] : ["HS256"]) + (ecKey == nil ? [] : ["ES256"]) + (rsaKey == nil ? [] : ["RS256"])
    }

    public func verify(_ token: String) throws(TokenError) -> OwnerToken {
        try OwnerToken.verify(token) { (algorithm: String, input: [UInt8], signature: [UInt8]) throws(TokenError) in
            let valid: Bool
            switch algorithm {
            case "HS256" where secret != nil:
                valid = HMACSHA256.isValid(signature, for: input, key: secret ?? [])
            case "ES256" where ecKey != nil:
                // JWS writes an ECDSA signature as r and s, 32 bytes each (RFC 7518 section 3.4).
                guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                    throw TokenError(.badSignature, "the token's ES256 signature is not 64 bytes of r and s")
                }
                valid = ecKey?.isValidSignature(parsed, for: Crypto.SHA256.hash(data: input)) == true
            case "RS256" where rsaKey != nil:
                valid =
                    rsaKey?.isValidSignature(
                        _RSA.Signing.RSASignature(rawRepresentation: signature), for: Crypto.SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
                    == true
            default:
                throw TokenError(
                    .malformed, "the token's algorithm is \(algorithm.prefix(20)); this gateway accepts \(algorithms.joined(separator: ", "))")
            }
            guard valid else { throw TokenError(.badSignature, "the token's signature does not match") }
        }
    }
}

/// A public key the verifier cannot check tokens with (``TokenVerifier/init(secret:publicKeyPEM:)``).
public struct TokenKeyError: Error, Sendable, CustomStringConvertible {
    public var message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
