public import Foundation
import WorkFeedModel

/// A bearer token naming an owner: a JSON Web Token (RFC 7519) signed with HMAC-SHA-256 (`HS256`),
/// whose `sub` is the owner id and `exp` its expiry. The app's own account system signs them with
/// the secret the gateway is configured with; `workctl token create` does too, for operators and
/// tests.
///
/// Verification accepts only the algorithms the verifier is configured with (`HS256` with a
/// secret here; the gateway adds ES256 and RS256 with a public key), never `none` and never one the
/// token names on its own; it requires `sub` (a valid ``Owner`` id) and `exp`, honours `nbf`, and
/// allows ``OwnerToken/leeway`` seconds of clock difference.
public struct OwnerToken: Sendable, Hashable {
    public var owner: String
    public var expires: Date
    public var notBefore: Date?

    public init(owner: String, expires: Date, notBefore: Date? = nil) {
        self.owner = owner
        self.expires = expires
        self.notBefore = notBefore
    }

    /// Seconds of clock difference forgiven on `exp` and `nbf`.
    public static let leeway: Double = 30
    /// The longest token accepted, in bytes: a header is bounded, and so is this.
    public static let maximumLength = 4096

    /// The signed token: `header.payload.signature`, each part base64url.
    public func signed(secret: [UInt8], issuedAt: Date = Date()) -> String {
        var claims = #"{"exp":\#(Int64(expires.timeIntervalSince1970.rounded(.down))),"iat":\#(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))"#
        if let notBefore { claims += #","nbf":\#(Int64(notBefore.timeIntervalSince1970.rounded(.down)))"# }
        claims += #","sub":"# + Self.jsonString(owner) + "}"
        let signingInput = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return signingInput + "." + Base64URL.encode(HMACSHA256.authenticationCode(for: signingInput.utf8, key: secret))
    }

    /// Checks an HS256 token and returns what it says.
    /// - Throws: ``TokenError`` saying why the token is refused (malformed, wrongly signed,
    ///   expired, not yet valid, no valid `sub`).
    public static func verify(_ token: String, secret: [UInt8], now: Date = Date()) throws(TokenError) -> OwnerToken {
        try verify(token, now: now) { (algorithm: String, signingInput: [UInt8], signature: [UInt8]) throws(TokenError) in
            guard algorithm == "HS256" else { throw TokenError(.malformed, "the token's algorithm must be HS256, is \(algorithm.prefix(20))") }
            guard HMACSHA256.isValid(signature, for: signingInput, key: secret) else {
                throw TokenError(.badSignature, "the token's signature does not match")
            }
        }
    }

    /// Checks a token whose signature `checkSignature` verifies, and returns what it says.
    /// - Parameter checkSignature: given the header's `alg`, the signed bytes and the signature;
    ///   throws ``TokenError`` for an algorithm that is not configured (never trust the token to
    ///   choose one) or a signature that does not match.
    /// - Throws: ``TokenError`` saying why the token is refused.
    public static func verify(
        _ token: String, now: Date = Date(),
        checkSignature: (_ algorithm: String, _ signingInput: [UInt8], _ signature: [UInt8]) throws(TokenError) -> Void
    ) throws(TokenError) -> OwnerToken {
        guard token.utf8.count <= maximumLength else { throw TokenError(.malformed, "the token is longer than \(maximumLength) bytes") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw TokenError(.malformed, "a token has three parts separated by dots, this one \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw TokenError(.malformed, "a part of the token is not base64url") }
        guard let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any] else {
            throw TokenError(.malformed, "the token's header is not a JSON object")
        }
        guard let algorithm = header["alg"] as? String else { throw TokenError(.malformed, "the token's header has no alg") }
        try checkSignature(algorithm, Array((parts[0] + "." + parts[1]).utf8), signature)
        guard let claims = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any] else {
            throw TokenError(.malformed, "the token's payload is not a JSON object")
        }
        guard let owner = claims["sub"] as? String else { throw TokenError(.malformed, "the token has no sub (the owner)") }
        if let problem = Owner.problem(with: owner) { throw TokenError(.malformed, "the token's sub: \(problem)") }
        guard let exp = Self.seconds(claims["exp"]) else { throw TokenError(.malformed, "the token has no numeric exp (its expiry)") }
        let nbf = Self.seconds(claims["nbf"])
        if claims["nbf"] != nil && nbf == nil { throw TokenError(.malformed, "the token's nbf is not a number") }
        let now = now.timeIntervalSince1970
        guard now < exp + leeway else { throw TokenError(.expired, "the token expired") }
        if let nbf, now + leeway < nbf { throw TokenError(.notYetValid, "the token is not valid yet") }
        return OwnerToken(owner: owner, expires: Date(timeIntervalSince1970: exp), notBefore: nbf.map(Date.init(timeIntervalSince1970:)))
    }

    private static func seconds(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let seconds = number.doubleValue
        return seconds.isFinite ? seconds : nil
    }

    private static func jsonString(_ text: String) -> String {
        // A one-element array always encodes; the brackets are taken off again.
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

/// Why a token was refused.
public struct TokenError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case malformed, badSignature = "bad-signature", expired, notYetValid = "not-yet-valid"
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
