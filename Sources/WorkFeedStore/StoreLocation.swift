public import Foundation

/// Where a picture store is, parsed once from `cache.directory`, `WORKFEED_CACHE` or `--cache`:
/// a directory (made absolute against the working directory), or `s3://BUCKET/PREFIX`. Every
/// program hands it to ``PictureStores/open(_:s3:)``; no caller builds a path from it.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// An absolute, standardized directory path.
    case directory(String)
    /// A bucket and a key prefix inside it (no leading or trailing `/`; empty for the whole bucket).
    case s3(bucket: String, prefix: String)

    /// Parses a location.
    /// - Parameters:
    ///   - text: a directory path, or `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    ///   - base: the directory a relative path is relative to (the working directory).
    /// - Throws: ``LocationError`` naming what is wrong with it.
    public init(parsing text: String, relativeTo base: String = FileManager.default.currentDirectoryPath) throws(LocationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw LocationError(.pictureStore, text, "is empty: give a directory or s3://bucket/prefix") }
        if let scheme = trimmed.range(of: "://") {
            let name = trimmed[..<scheme.lowerBound].lowercased()
            guard name == "s3" else {
                throw LocationError(.pictureStore, text, "has the scheme '\(name)': only a directory or s3://bucket/prefix is a picture store")
            }
            let rest = trimmed[scheme.upperBound...]
            let bucket = String(rest.prefix { $0 != "/" })
            if let problem = Self.bucketProblem(bucket) { throw LocationError(.pictureStore, text, problem) }
            let segments = rest.dropFirst(bucket.count).split(separator: "/", omittingEmptySubsequences: true)
            for segment in segments {
                guard segment != ".", segment != ".." else { throw LocationError(.pictureStore, text, "has a '\(segment)' segment in its prefix") }
                guard segment.unicodeScalars.allSatisfy(Self.isPrefixCharacter) else {
                    throw LocationError(.pictureStore, text, "has a prefix with characters other than letters, digits and - _ . ! * ' ( )")
                }
            }
            guard rest.utf8.count <= 512 else { throw LocationError(.pictureStore, text, "is longer than 512 bytes") }
            self = .s3(bucket: bucket, prefix: segments.joined(separator: "/"))
            return
        }
        guard !trimmed.utf8.contains(0) else { throw LocationError(.pictureStore, text, "holds a NUL byte") }
        let absolute = trimmed.hasPrefix("/") ? trimmed : base + "/" + trimmed
        self = .directory(URL(fileURLWithPath: absolute).standardizedFileURL.path)
    }

    public var description: String {
        switch self {
        case .directory(let path): path
        case .s3(let bucket, let prefix): prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
        }
    }

    /// The directory, for the parts that need one beside the store (nothing for an object store).
    public var directory: String? {
        if case .directory(let path) = self { return path }
        return nil
    }

    /// S3's bucket naming rules (3 to 63 lower-case letters, digits, `.` and `-`, starting and
    /// ending with a letter or digit), or `nil` when `bucket` keeps them.
    static func bucketProblem(_ bucket: String) -> String? {
        if bucket.isEmpty { return "names no bucket: write s3://bucket/prefix" }
        guard (3...63).contains(bucket.utf8.count) else { return "names the bucket '\(bucket)', which is not 3 to 63 characters long" }
        let allowed = bucket.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D }
        let ends = [bucket.utf8.first!, bucket.utf8.last!].allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        guard allowed && ends else {
            return "names the bucket '\(bucket)': a bucket name has lower-case letters, digits, '.' and '-', "
                + "and starts and ends with a letter or digit"
        }
        return nil
    }

    /// The characters AWS calls safe in object key names.
    static func isPrefixCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "!", "*", "'", "(", ")": true
        default: false
        }
    }
}

/// A location (of a picture store or a tileset) that cannot be used: what it locates, the text
/// and what is wrong with it ("the tileset 'ftp://…' has the scheme 'ftp': …").
public struct LocationError: Error, CustomStringConvertible, Sendable {
    /// What the location is of, as its message names it.
    public enum Subject: String, Sendable {
        case pictureStore = "picture store"
        case tileset
    }

    public let subject: Subject
    public let text: String
    public let problem: String

    init(_ subject: Subject, _ text: String, _ problem: String) {
        self.subject = subject
        self.text = text
        self.problem = problem
    }

    public var description: String { "the \(subject.rawValue) '\(text)' \(problem)" }
}

/// How an S3 store is reached beyond its location: `store.s3.*` of every program's configuration.
/// Unset values come the AWS way: the region from `AWS_REGION` (or `AWS_DEFAULT_REGION`), the
/// credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
public struct S3StoreSettings: Sendable, Hashable {
    /// `store.s3.endpoint` / `WORKFEED_S3_ENDPOINT`: another service than AWS (`http://minio:9000`).
    public var endpoint: String?
    /// `store.s3.region`.
    public var region: String?
    /// `store.s3.addressing`: `path` or `virtual-host`; unset: virtual-host on AWS, path elsewhere.
    public var pathStyle: Bool?
    /// `store.s3.credentials_file`: an AWS shared credentials file, read instead of the environment.
    public var credentialsFile: String?
    /// `store.s3.profile`: the section of the credentials file (`AWS_PROFILE`, else `default`).
    public var profile: String?

    public init(endpoint: String? = nil, region: String? = nil, pathStyle: Bool? = nil, credentialsFile: String? = nil, profile: String? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
        self.credentialsFile = credentialsFile
        self.profile = profile
    }
}
