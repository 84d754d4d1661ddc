public import Foundation

/// Where a tileset is, parsed once from an entry of `basemap.tilesets` or `workctl render
/// --tileset`: a file on this host, a PMTiles archive behind an HTTP server that answers range
/// requests (`https://…`, `http://…`), or an object in an S3-compatible bucket (`s3://BUCKET/KEY`,
/// reached as `store.s3.*` says, like the picture store). It sits beside ``StoreLocation``: both
/// name where bytes live, and share the bucket rules.
public enum TilesetLocation: Sendable, Hashable, CustomStringConvertible {
    /// A path, as given (relative to the working directory when it does not start with `/`).
    case file(String)
    /// An `http://` or `https://` URL with a host, as given.
    case url(String)
    /// A bucket and an object key (no leading `/`).
    case s3(bucket: String, key: String)

    /// Parses one entry.
    /// - Throws: ``LocationError`` naming what is wrong: another scheme, a URL without a
    ///   host, a bucket name S3 refuses, an `s3://` location without a key.
    public init(parsing text: String) throws(LocationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw LocationError(.tileset, text, "is empty: give a file, an https:// URL or s3://bucket/key") }
        guard let scheme = trimmed.range(of: "://") else {
            guard !trimmed.utf8.contains(0) else { throw LocationError(.tileset, text, "holds a NUL byte") }
            self = .file(trimmed)
            return
        }
        switch trimmed[..<scheme.lowerBound].lowercased() {
        case "http", "https":
            guard let url = URLComponents(string: trimmed), let host = url.host, !host.isEmpty else {
                throw LocationError(.tileset, text, "is not a URL with a host (https://HOST/PATH)")
            }
            guard url.fragment == nil else { throw LocationError(.tileset, text, "has a #fragment, which no server sees") }
            self = .url(trimmed)
        case "s3":
            let rest = trimmed[scheme.upperBound...]
            let bucket = String(rest.prefix { $0 != "/" })
            if let problem = StoreLocation.bucketProblem(bucket) { throw LocationError(.tileset, text, problem) }
            let key = String(rest.dropFirst(bucket.count + 1))
            guard !key.isEmpty, !key.hasSuffix("/") else { throw LocationError(.tileset, text, "names no object: write s3://bucket/key") }
            guard key.utf8.count <= 1024 else { throw LocationError(.tileset, text, "has a key longer than S3's 1,024 bytes") }
            self = .s3(bucket: bucket, key: key)
        case let other:
            throw LocationError(.tileset, text, "has the scheme '\(other)': a tileset is a file, an http:// or https:// URL, or s3://bucket/key")
        }
    }

    /// Whether the tileset is read over the network, by range requests.
    public var isRemote: Bool {
        switch self {
        case .file: false
        case .url, .s3: true
        }
    }

    /// The location as it is written in the configuration (and named in messages and logs).
    public var description: String {
        switch self {
        case .file(let path): path
        case .url(let url): url
        case .s3(let bucket, let key): "s3://\(bucket)/\(key)"
        }
    }
}
