import Foundation
import Testing
import WorkFeedS3

/// Every case of AWS's Signature Version 4 test suite (Tests/Data/aws-sigv4-test-suite, from
/// awslabs/aws-c-auth, Apache-2.0): the canonical request, the string to sign and the signature,
/// signed in headers and in the query string, must be the expected files byte for byte.
@Suite struct SigV4SuiteTests {
    static let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/aws-sigv4-test-suite/v4").path
    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: suite)) ?? []).sorted()

    @Test func theWholeSuiteIsThere() {
        #expect(Self.cases.count == 38)
    }

    @Test(arguments: cases) func signedInHeaders(_ name: String) throws {
        let sample = try SuiteCase(directory: Self.suite + "/" + name)
        let signer = sample.signer
        let payloadHash = SigV4Signer.hash(sample.body)
        let added = signer.authorizationHeaders(
            for: sample.request, payloadHash: payloadHash, date: sample.date, addsContentHash: sample.signsBody,
            omitSessionToken: sample.omitsSessionToken)

        var signed = sample.request
        signed.headers += added.filter {
            $0.name != "Authorization" && !(sample.omitsSessionToken && $0.name == "X-Amz-Security-Token")
        }
        let canonical = signer.canonicalRequest(signed, payloadHash: payloadHash).text
        #expect(canonical == (try sample.file("header-canonical-request.txt")))
        let stringToSign = signer.stringToSign(canonical, date: sample.date)
        #expect(stringToSign == (try sample.file("header-string-to-sign.txt")))
        #expect(signer.signature(of: stringToSign, date: sample.date) == (try sample.file("header-signature.txt")))
        let authorization = try sample.file("header-signed-request.txt").split(separator: "\n")
            .first { $0.hasPrefix("Authorization:") }.map { String($0.dropFirst("Authorization:".count)) }
        #expect(added.first { $0.name == "Authorization" }?.value == authorization)
        if sample.omitsSessionToken {
            #expect(added.contains { $0.name == "X-Amz-Security-Token" })
        }
    }

    @Test(arguments: cases) func signedInQuery(_ name: String) throws {
        let sample = try SuiteCase(directory: Self.suite + "/" + name)
        let signer = sample.signer
        let payloadHash = SigV4Signer.hash(sample.body)
        let added = signer.presignedQuery(
            for: sample.request, payloadHash: payloadHash, date: sample.date, expires: sample.expires,
            omitSessionToken: sample.omitsSessionToken)

        var signed = sample.request
        signed.query += added.filter {
            $0.name != "X-Amz-Signature" && !(sample.omitsSessionToken && $0.name == "X-Amz-Security-Token")
        }
        let canonical = signer.canonicalRequest(signed, payloadHash: payloadHash).text
        #expect(canonical == (try sample.file("query-canonical-request.txt")))
        let stringToSign = signer.stringToSign(canonical, date: sample.date)
        #expect(stringToSign == (try sample.file("query-string-to-sign.txt")))
        let expected = try sample.file("query-signature.txt")
        #expect(signer.signature(of: stringToSign, date: sample.date) == expected)
        #expect(added.last?.name == "X-Amz-Signature" && added.last?.value == expected)
    }

    /// What S3 asks beyond the suite: object keys are signed as they are (no normalization), each
    /// byte outside the unreserved set encoded once.
    @Test func objectKeysAreNotNormalized() {
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b"), region: "r", service: "s3", normalizesPath: false)
        let request = SigV4Request(method: "GET", path: "/bucket/a//b/../c d+e.png", headers: [("host", "h")])
        let lines = signer.canonicalRequest(request, payloadHash: SigV4Signer.unsignedPayload).text.split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "/bucket/a//b/../c%20d%2Be.png")
    }
}

/// One folder of the suite: the request, read from `request.txt` (its path and query as sent, raw
/// UTF-8 or percent-encoded; headers, with continuation lines folded into one value), and its
/// `context.json`.
struct SuiteCase {
    let directory: String
    let request: SigV4Request
    let body: [UInt8]
    let signer: SigV4Signer
    let date: Date
    let signsBody: Bool
    let omitsSessionToken: Bool
    let expires: Int

    struct Context: Decodable {
        struct Credentials: Decodable {
            let access_key_id: String
            let secret_access_key: String
            let token: String?
        }
        let credentials: Credentials
        let expiration_in_seconds: Int
        let normalize: Bool
        let region: String
        let service: String
        let sign_body: Bool
        let timestamp: String
        let omit_session_token: Bool?
    }

    init(directory: String) throws {
        self.directory = directory
        let context = try JSONDecoder().decode(Context.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/context.json")))
        let text = try String(contentsOfFile: directory + "/request.txt", encoding: .utf8)
        let (head, body) = Self.split(text)
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst()
        let method = String(requestLine.prefix { $0 != " " })
        let target = String(requestLine.dropFirst(method.count + 1).dropLast(" HTTP/1.1".count))
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        let path = String(target[..<pathEnd])
        var query: [(name: String, value: String)] = []
        if pathEnd < target.endIndex {
            for item in target[target.index(after: pathEnd)...].split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
                query.append((name, value))
            }
        }
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", !headers.isEmpty {
                headers[headers.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        request = SigV4Request(method: method, path: path, query: query, headers: headers)
        self.body = Array(body.utf8)
        let credentials = S3Credentials(
            accessKeyID: context.credentials.access_key_id, secretAccessKey: context.credentials.secret_access_key,
            sessionToken: context.credentials.token)
        signer = SigV4Signer(credentials: credentials, region: context.region, service: context.service, normalizesPath: context.normalize)
        date = try #require(ISO8601DateFormatter().date(from: context.timestamp))
        signsBody = context.sign_body
        omitsSessionToken = context.omit_session_token ?? false
        expires = context.expiration_in_seconds
    }

    func file(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }

    /// The head (request line and headers) and the body, split at the first empty line.
    static func split(_ text: String) -> (String, String) {
        guard let blank = text.range(of: "\n\n") else {
            return (text.hasSuffix("\n") ? String(text.dropLast()) : text, "")
        }
        return (String(text[..<blank.lowerBound]), String(text[blank.upperBound...]))
    }
}
