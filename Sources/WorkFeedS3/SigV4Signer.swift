public import Foundation
import Crypto

/// Credentials of an AWS-style account: an access key, its secret, and a session token for
/// temporary credentials (STS, an instance role).
public struct S3Credentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`), in the `Authorization` header or in the query
/// string (a presigned URL), as AWS documents it ("Create a signed AWS API request") and as its
/// published test suite checks it (Tests/Data/aws-sigv4-test-suite, every case).
///
/// Ours because Soto does not resolve on this machine; it is small: a canonical request, a string
/// to sign, and a key derived by four HMAC-SHA256 steps (swift-crypto).
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "eu-central-1", service: "s3", normalizesPath: false)
/// var request = SigV4Request(method: "PUT", path: "/bucket/key.png", headers: [("host", "minio:9000")])
/// request.headers += signer.authorizationHeaders(for: request, payloadHash: SigV4Signer.hash(bytes), date: Date())
/// ```
public struct SigV4Signer: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String
    /// Whether the path is normalized (dot segments and repeated slashes removed) before it is
    /// signed: every service but S3, which signs the object key as it is.
    public var normalizesPath: Bool

    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The payload hash S3 accepts for a body that is not hashed (presigned URLs).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public init(credentials: S3Credentials, region: String, service: String, normalizesPath: Bool) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.normalizesPath = normalizesPath
    }

    /// Lower-case hex SHA-256 of `bytes`: the payload hash of a body.
    public static func hash(_ bytes: some Sequence<UInt8>) -> String {
        hex(SHA256.hash(data: Array(bytes)))
    }

    /// The headers that sign `request` (to add to it): `x-amz-date`, `x-amz-security-token` when
    /// the credentials have a session token (signed unless `omitSessionToken`, which adds it after
    /// signing as some services want), `x-amz-content-sha256` when `addsContentHash` (S3 wants it),
    /// and `Authorization`.
    public func authorizationHeaders(
        for request: SigV4Request, payloadHash: String, date: Date, addsContentHash: Bool = true, omitSessionToken: Bool = false
    ) -> [(name: String, value: String)] {
        let stamp = SigV4Stamp(date)
        var added: [(name: String, value: String)] = [("X-Amz-Date", stamp.time)]
        if let token = credentials.sessionToken, !omitSessionToken { added.append(("X-Amz-Security-Token", token)) }
        if addsContentHash { added.append(("x-amz-content-sha256", payloadHash)) }
        var signed = request
        signed.headers += added
        let canonical = canonicalRequest(signed, payloadHash: payloadHash)
        let signature = self.signature(of: stringToSign(canonical.text, stamp: stamp), stamp: stamp)
        if let token = credentials.sessionToken, omitSessionToken { added.append(("X-Amz-Security-Token", token)) }
        added.append(
            (
                "Authorization",
                "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            ))
        return added
    }

    /// The query items that presign `request` for `expires` seconds (in the order AWS's examples
    /// list them, `X-Amz-Signature` last), to append to its query.
    public func presignedQuery(
        for request: SigV4Request, payloadHash: String, date: Date, expires: Int, omitSessionToken: Bool = false
    ) -> [(name: String, value: String)] {
        let stamp = SigV4Stamp(date)
        let signedHeaders = Self.canonicalHeaders(request.headers).signed
        var added: [(name: String, value: String)] = [
            ("X-Amz-Algorithm", Self.algorithm), ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
            ("X-Amz-Date", stamp.time), ("X-Amz-SignedHeaders", signedHeaders), ("X-Amz-Expires", String(expires)),
        ]
        if let token = credentials.sessionToken, !omitSessionToken { added.append(("X-Amz-Security-Token", token)) }
        var signed = request
        signed.query += added
        let canonical = canonicalRequest(signed, payloadHash: payloadHash)
        if let token = credentials.sessionToken, omitSessionToken { added.append(("X-Amz-Security-Token", token)) }
        added.append(("X-Amz-Signature", signature(of: stringToSign(canonical.text, stamp: stamp), stamp: stamp)))
        return added
    }

    /// The canonical request: method, encoded path, sorted encoded query, canonical headers, the
    /// signed header names, and the payload hash, one per line.
    public func canonicalRequest(_ request: SigV4Request, payloadHash: String) -> (text: String, signedHeaders: String) {
        let path = Self.canonicalPath(request.path, normalize: normalizesPath)
        let encoded: [(name: String, value: String)] = request.query.map { (Self.encode($0.name), Self.encode($0.value)) }
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name == b.name ? a.value < b.value : a.name < b.name
        }
        let query = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let headers = Self.canonicalHeaders(request.headers)
        let text = [request.method, path, query, headers.text, headers.signed, payloadHash].joined(separator: "\n")
        return (text, headers.signed)
    }

    public func stringToSign(_ canonicalRequest: String, date: Date) -> String {
        stringToSign(canonicalRequest, stamp: SigV4Stamp(date))
    }

    /// The hex signature of `stringToSign` made on `date`.
    public func signature(of stringToSign: String, date: Date) -> String {
        signature(of: stringToSign, stamp: SigV4Stamp(date))
    }

    func stringToSign(_ canonicalRequest: String, stamp: SigV4Stamp) -> String {
        [Self.algorithm, stamp.time, scope(stamp), Self.hash(Array(canonicalRequest.utf8))].joined(separator: "\n")
    }

    func signature(of stringToSign: String, stamp: SigV4Stamp) -> String {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [stamp.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    func scope(_ stamp: SigV4Stamp) -> String {
        "\(stamp.day)/\(region)/\(service)/aws4_request"
    }

    /// Lower-case names, sorted; values trimmed, inner runs of spaces made one, repeated names'
    /// values joined with commas in the order given.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (text: String, signed: String) {
        var values: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
            values[header.name.lowercased(), default: []].append(value)
        }
        let names = values.keys.sorted()
        let text = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (text, names.joined(separator: ";"))
    }

    /// The path, percent-encoded segment by segment (each once, as S3 wants), after removing dot
    /// segments and empty segments when `normalize` is set; a trailing slash is kept.
    public static func canonicalPath(_ path: String, normalize: Bool) -> String {
        guard !path.isEmpty else { return "/" }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if normalize {
            let trailing = path.hasSuffix("/") || path.hasSuffix("/.") || path.hasSuffix("/..")
            var kept: [String] = []
            for segment in segments {
                switch segment {
                case "", ".": continue
                case "..": if !kept.isEmpty { kept.removeLast() }
                default: kept.append(segment)
                }
            }
            segments = [""] + kept
            if trailing && !kept.isEmpty { segments.append("") }
            if kept.isEmpty { return "/" }
        }
        return segments.map { encode($0) }.joined(separator: "/")
    }

    /// RFC 3986 percent-encoding as AWS specifies it: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`
    /// with upper-case hex digits.
    public static func encode(_ text: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A request as the signer sees it: the method, the path before encoding (an object key's bytes
/// as they are), the query items before encoding, and the headers to sign (`host` among them).
public struct SigV4Request: Sendable {
    public var method: String
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: [(name: String, value: String)]

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }
}

/// A signing time in the two forms SigV4 uses: `20150830T123600Z` and `20150830`.
struct SigV4Stamp {
    let time: String
    let day: String

    init(_ date: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : String($0) } ?? "00" }
        day = String(parts.year ?? 1970) + two(parts.month) + two(parts.day)
        time = day + "T" + two(parts.hour) + two(parts.minute) + two(parts.second) + "Z"
    }
}
