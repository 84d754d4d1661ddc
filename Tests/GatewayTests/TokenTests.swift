import Foundation
import Testing
import WorkFeedModel
import WorkFeedTokens

/// HMAC-SHA-256 against RFC 4231's test vectors, base64url, and tokens signed and checked.
@Suite struct TokenTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test(arguments: [
        // RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output).
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", String(repeating: "dd", count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            String(repeating: "aa", count: 131),
            "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func hmacMatchesRFC4231(key: String, data: String, expected: String) {
        #expect(SHA256.hex([]).count == 64)
        #expect(HMACSHA256.authenticationCode(for: Self.hex(data), key: Self.hex(key)) == Self.hex(expected))
    }

    @Test func base64URLRoundTripsAndRefusesWhatIsNotIt() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        for bad in ["a", "ab=c", "a+bc", "ab/c", "abcde", "ab c"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
    }

    /// The example token of RFC 7519 section 3.1's style, made by another implementation (jwt.io's
    /// HS256 example with the secret "your-256-bit-secret"): our check accepts its signature.
    @Test func anotherImplementationsTokenVerifies() throws {
        let secret = Array("your-256-bit-secret".utf8)
        // {"alg":"HS256","typ":"JWT"} . {"sub":"1234567890","name":"John Doe","iat":1516239022}
        let token =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        // It has no exp, so it is refused, but for that reason, after its signature was accepted.
        #expect(throws: TokenError(.malformed, "the token has no numeric exp (its expiry)")) { try OwnerToken.verify(token, secret: secret) }
        #expect(throws: TokenError(.badSignature, "the token's signature does not match")) {
            try OwnerToken.verify(token, secret: Array("another-secret".utf8))
        }
    }

    /// A token signed by the hand-written HMAC, before swift-crypto's `HMAC<SHA256>` replaced it
    /// (`workctl token create --owner 'auth0|before-the-change' --expires 3650d` at commit 7d0a104,
    /// on 2026-11-25, with the secret below): it still verifies, and signing the same claims now
    /// gives the same bytes.
    @Test func aTokenSignedBeforeSwiftCryptoVerifies() throws {
        let secret = Array("codes-test-secret-0123456789abcdefghijklmnop".utf8)
        let token =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjIxMTEwMDM0ODksImlhdCI6MTc5NTY0MzQ4OSwic3ViIjoiYXV0aDB8YmVmb3JlLXRoZS1jaGFuZ2UifQ.QjwvSIZufXnVZDCJUuBDddSW4aB7AylCgYZn8rQ30jk"
        let issued = Date(timeIntervalSince1970: 1_795_643_489)
        let verified = try OwnerToken.verify(token, secret: secret, now: issued)
        #expect(verified.owner == "auth0|before-the-change")
        #expect(verified.expires == Date(timeIntervalSince1970: 2_111_003_489))
        #expect(verified.signed(secret: secret, issuedAt: issued) == token)
        // One bit off in the signature, or the signature cut short, is refused.
        var parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 1
        parts[2] = Base64URL.encode(signature)
        #expect(throws: TokenError(.badSignature, "the token's signature does not match")) {
            try OwnerToken.verify(parts.joined(separator: "."), secret: secret, now: issued)
        }
        parts[2] = Base64URL.encode(Array(signature.dropLast()))
        #expect(throws: TokenError(.badSignature, "the token's signature does not match")) {
            try OwnerToken.verify(parts.joined(separator: "."), secret: secret, now: issued)
        }
    }

    @Test func signedTokensVerifyUntilTheyExpire() throws {
        let secret = Array(repeating: UInt8(7), count: 32)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = OwnerToken(owner: "auth0|user \"7\"", expires: now.addingTimeInterval(60)).signed(secret: secret, issuedAt: now)
        #expect(try OwnerToken.verify(token, secret: secret, now: now).owner == "auth0|user \"7\"")
        #expect(try OwnerToken.verify(token, secret: secret, now: now.addingTimeInterval(80)).owner == "auth0|user \"7\"")  // leeway
        #expect(throws: TokenError.self) { try OwnerToken.verify(token, secret: secret, now: now.addingTimeInterval(120)) }
        let later = OwnerToken(owner: "a", expires: now.addingTimeInterval(600), notBefore: now.addingTimeInterval(300)).signed(secret: secret)
        #expect(throws: TokenError.self) { try OwnerToken.verify(later, secret: secret, now: now) }
        #expect(try OwnerToken.verify(later, secret: secret, now: now.addingTimeInterval(400)).owner == "a")
        #expect(throws: TokenError.self) { try OwnerToken.verify(String(repeating: "a.", count: 3000), secret: secret) }
    }
}
