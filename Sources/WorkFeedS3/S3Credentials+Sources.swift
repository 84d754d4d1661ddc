public import Foundation
import Synchronization

/// Where credentials come from, the AWS way: the environment (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), or a shared credentials file (the INI format of
/// `~/.aws/credentials`: `[profile]` sections with `aws_access_key_id`, `aws_secret_access_key`,
/// `aws_session_token`), or given whole (tests).
public enum S3CredentialSource: Sendable, Equatable {
    case environment
    case file(path: String, profile: String)
    case fixed(S3Credentials)

    /// Reads the credentials now.
    /// - Throws: ``S3CredentialsError`` naming what is missing and where it was looked for.
    public func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(S3CredentialsError) -> S3Credentials {
        switch self {
        case .fixed(let credentials):
            return credentials
        case .environment:
            guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
            else {
                throw S3CredentialsError(
                    "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), "
                        + "or name a credentials file in store.s3.credentials_file")
            }
            let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
        case .file(let path, let profile):
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw S3CredentialsError("the credentials file '\(path)' cannot be read: \(error.localizedDescription)")
            }
            let values = Self.section(profile, of: text)
            guard let id = values["aws_access_key_id"], !id.isEmpty, let secret = values["aws_secret_access_key"], !secret.isEmpty else {
                throw S3CredentialsError(
                    "the credentials file '\(path)' has no aws_access_key_id and aws_secret_access_key in its [\(profile)] section")
            }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
        }
    }

    /// The `key = value` lines of `[name]` in an INI text (comments with `#` or `;`).
    static func section(_ name: String, of text: String) -> [String: String] {
        var current: String?
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard current == name, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}

/// Credentials could not be found or read.
public struct S3CredentialsError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The credentials a client signs with, read once and read again when the service refuses them
/// (a rotated file, a renewed session token), at most once every few seconds.
final class S3CredentialsProvider: Sendable {
    let source: S3CredentialSource
    private let state: Mutex<(credentials: S3Credentials, loaded: ContinuousClock.Instant)>

    init(source: S3CredentialSource) throws(S3CredentialsError) {
        self.source = source
        state = Mutex((try source.load(), .now))
    }

    var current: S3Credentials { state.withLock { $0.credentials } }

    /// Reads the source again (unless it was read less than two seconds ago).
    /// - Returns: whether the credentials changed.
    func reload() -> Bool {
        let due = state.withLock { ContinuousClock.now - $0.loaded > .seconds(2) }
        guard due, let fresh = try? source.load() else { return false }
        return state.withLock { state in
            state.loaded = .now
            defer { state.credentials = fresh }
            return state.credentials != fresh
        }
    }
}
