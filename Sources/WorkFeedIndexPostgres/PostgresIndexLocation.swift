import Foundation
public import WorkFeedIndex

/// Where a PostgreSQL index is: `index.url: postgres://user@host:port/database` (also
/// `WORKFEED_INDEX_URL`, `--index`), read once at start (docs/postgres-index.md, "Connecting").
///
/// - A server on a Unix socket: `postgres://user@/database?host=/run/postgresql` (the directory
///   that holds `.s.PGSQL.<port>`), as libpq writes it.
/// - `sslmode`: `disable` (the default on a Unix socket), `require` (encrypted, the server's
///   certificate not checked, as libpq's), `verify-full` (encrypted, certificate and host name
///   checked against the system's trust store; the default over TCP).
/// - The password is never in the URL, where configuration files, process lists and logs would
///   show it: it is read from a file (`index.password_file`, `WORKFEED_INDEX_PASSWORD_FILE`), its
///   first line, as Kubernetes and Docker secrets are mounted.
public struct PostgresIndexLocation: Sendable, Hashable, CustomStringConvertible {
    public enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket `directory/.s.PGSQL.port`.
        case socket(directory: String, port: Int)
    }

    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable
        case require
        case verifyFull = "verify-full"
    }

    public var endpoint: Endpoint
    public var user: String
    public var database: String
    public var tls: TLSMode
    public var password: String?

    public init(endpoint: Endpoint, user: String, database: String, tls: TLSMode, password: String? = nil) {
        self.endpoint = endpoint
        self.user = user
        self.database = database
        self.tls = tls
        self.password = password
    }

    /// Reads `url`, and the password from `passwordFile` when one is given.
    /// - Throws: ``IndexError/Code/unavailable``, naming what is wrong with the URL or the file.
    public init(url: String, passwordFile: String? = nil) throws(IndexError) {
        func refuse(_ why: String) -> IndexError {
            IndexError(.unavailable, "index.url \(Self.quoted(url)) \(why) (expected postgres://user@host:port/database)")
        }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased() else {
            throw refuse("is not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else { throw refuse("has the scheme \(scheme):, not postgres:") }
        guard parts.password == nil else {
            throw refuse("holds a password: give it in a file instead (index.password_file, WORKFEED_INDEX_PASSWORD_FILE)")
        }
        guard let user = parts.user, !user.isEmpty else { throw refuse("names no user") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw refuse("names no database (its path)") }
        let port = parts.port ?? 5432
        guard (1...65_535).contains(port) else { throw refuse("has the port \(port)") }

        var socketDirectory: String?
        var tls: TLSMode?
        for item in parts.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw refuse("has host=\(item.value ?? ""): a socket directory starts with /")
                }
                socketDirectory = value
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw refuse(
                        "has sslmode=\(item.value ?? ""): one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            default:
                throw refuse("has the parameter \(item.name), which WorkFeed does not know (host, sslmode)")
            }
        }
        let host = parts.host ?? ""
        switch (host.isEmpty, socketDirectory) {
        case (true, let directory?): endpoint = .socket(directory: directory, port: port)
        case (false, nil): endpoint = .tcp(host: host, port: port)
        case (true, nil): throw refuse("names no host (or ?host=/socket/directory)")
        case (false, _?): throw refuse("names both a host and a socket directory")
        }
        if case .socket = endpoint, tls != nil, tls != .disable { throw refuse("asks for TLS over a Unix socket") }
        self.user = user
        self.database = database
        self.tls = tls ?? (socketDirectory == nil ? .verifyFull : .disable)
        if let passwordFile { password = try Self.readPassword(passwordFile) }
    }

    /// The first line of `path`.
    static func readPassword(_ path: String) throws(IndexError) -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw IndexError(.unavailable, "the index's password file \(path) cannot be read", cause: error)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw IndexError(.unavailable, "the index's password file \(path) is not UTF-8 text")
        }
        let password = text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !password.isEmpty else { throw IndexError(.unavailable, "the index's password file \(path) is empty") }
        return password
    }

    /// The URL without any password: for logs, errors and `workctl status`.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?sslmode=\(tls.rawValue)"
        case .socket(let directory, let port):
            return "postgres://\(user)@:\(port)/\(database)?host=\(directory)"
        }
    }

    static func quoted(_ url: String) -> String {
        // Never repeat a password someone put in the URL anyway.
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "…"
        return parts.string ?? "(the URL)"
    }
}
