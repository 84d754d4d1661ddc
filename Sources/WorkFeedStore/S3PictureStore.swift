import Foundation

#if canImport(Glibc)
import Glibc
#endif
public import WorkFeedModel
public import WorkFeedS3

/// Pictures in an S3-compatible bucket (AWS S3, MinIO, Ceph's RADOS Gateway, Cloudflare R2),
/// under a key prefix, laid out as a directory store lays out its files (``CacheLayout``):
/// `PREFIX/route/3f/3f2a…_dark.png` by picture, `PREFIX/keys/9c/9c04….png` by content.
///
/// A picture is written whole in one PUT each (an object is replaced atomically: a reader sees the
/// old bytes or the new ones), its body hashed into the signature so that the service refuses a
/// body cut short; both names are put at once. The by-content object carries
/// ``immutableCacheControl`` (its name is its content), and both `Content-Type: image/png`.
///
/// What a directory does with a second name (a hard link) is a second object here; what it
/// compares by inode, this compares by entity tag (the MD5 of a single-part upload: the same bytes
/// give the same tag).
public struct S3PictureStore: PictureStore, CustomStringConvertible {
    public let client: S3Client
    /// The key prefix, ending in `/` unless empty.
    public let prefix: String

    /// What the by-content objects say to caches: their name is their content.
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    public init(client: S3Client, prefix: String) {
        self.client = client
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    public var description: String {
        "s3://\(client.configuration.bucket)/\(prefix) at \(client.configuration.endpoint)"
    }

    func objectKey(_ picture: PictureID) -> String { prefix + CacheLayout.relativePath(for: picture) }
    func objectKey(forKey key: String) -> String? { CacheLayout.relativePath(forKey: key).map { prefix + $0 } }

    public func location(of picture: PictureID) -> String {
        "s3://\(client.configuration.bucket)/\(objectKey(picture))"
    }

    /// The object's URL: under `base` (a CDN in front of the bucket) when given, else the bucket's.
    public func publicURL(key: String, base: String?) -> String? {
        guard let object = objectKey(forKey: key) else { return nil }
        guard let base, !base.isEmpty else { return client.url(of: object) }
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + SigV4Signer.canonicalPath("/" + object, normalize: false)
    }

    public func put(_ bytes: [UInt8], for picture: PictureID, key: String) throws(PictureStoreError) {
        var objects: [(key: String, bytes: [UInt8], contentType: String, cacheControl: String?)] = [
            (objectKey(picture), bytes, "image/png", nil)
        ]
        if let keyed = objectKey(forKey: key) { objects.append((keyed, bytes, "image/png", Self.immutableCacheControl)) }
        try run { () throws(S3Error) in try client.putAll(objects) }
    }

    public func picture(key: String) throws(PictureStoreError) -> [UInt8]? {
        guard let object = objectKey(forKey: key) else { return nil }
        guard let found = try run({ () throws(S3Error) in try client.get(object, maximumBytes: StoredPicture.maximumBytes) }) else {
            return nil
        }
        try StoredPicture.check(found.bytes, key: key, path: location(object))
        return found.bytes
    }

    public func picture(_ picture: PictureID) throws(PictureStoreError) -> [UInt8]? {
        let object = objectKey(picture)
        guard let found = try run({ () throws(S3Error) in try client.get(object, maximumBytes: StoredPicture.maximumBytes) }) else {
            return nil
        }
        try StoredPicture.check(found.bytes, key: nil, path: location(object))
        return found.bytes
    }

    public func contains(key: String) -> Bool {
        guard let object = objectKey(forKey: key) else { return false }
        return (try? client.head(object)) != nil
    }

    public func contains(_ picture: PictureID) -> Bool {
        (try? client.head(objectKey(picture))) != nil
    }

    public func delete(_ picture: PictureID) throws(PictureStoreError) {
        let object = objectKey(picture)
        try run { () throws(S3Error) in try client.delete(object) }
    }

    public func delete(key: String) throws(PictureStoreError) {
        guard let object = objectKey(forKey: key) else { return }
        try run { () throws(S3Error) in try client.delete(object) }
    }

    /// Reads the picture's head and its entity tag, and deletes it only while the tag is that one
    /// (`If-Match`): a picture a worker put meanwhile stays.
    @discardableResult
    public func delete(_ picture: PictureID, ifKey key: String) throws(PictureStoreError) -> Bool {
        let object = objectKey(picture)
        guard let head = try run({ () throws(S3Error) in try client.get(object, length: StoredPicture.headSize) }) else { return false }
        guard PNGText.value(of: CacheLayout.keyTextKeyword, in: head.bytes) == key else { return false }
        do {
            try client.delete(object, ifMatch: head.etag.isEmpty ? nil : head.etag)
            return true
        } catch  where error.kind == .conditionFailed {
            return false
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Removes many names in DeleteObjects requests of up to 1,000 keys each.
    public func delete(pictures: [PictureID], keys: [String]) -> [PictureStoreRemovalFailure] {
        var objects: [(object: String, name: PictureStoreName)] = pictures.map { (objectKey($0), .picture($0)) }
        objects += keys.compactMap { key in objectKey(forKey: key).map { ($0, .key(key)) } }
        var failures: [PictureStoreRemovalFailure] = []
        var start = 0
        while start < objects.count {
            let chunk = objects[start..<min(start + Self.deleteBatchSize, objects.count)]
            start += Self.deleteBatchSize
            do {
                let refused = try client.delete(keys: chunk.map(\.object))
                let names = Dictionary(chunk.map { ($0.object, $0.name) }, uniquingKeysWith: { first, _ in first })
                for (object, code) in refused {
                    guard let name = names[object] else { continue }
                    let kind = S3Error.kind(status: 0, code: code)
                    let error = S3Error(
                        kind, operation: "DELETE-OBJECTS", bucket: client.configuration.bucket, endpoint: client.configuration.endpoint,
                        key: object, s3Code: code, message: "")
                    failures.append(PictureStoreRemovalFailure(name: name, error: Self.storeError(error)))
                }
            } catch {
                let failure = Self.storeError(error)
                failures += chunk.map { PictureStoreRemovalFailure(name: $0.name, error: failure) }
            }
        }
        return failures
    }

    /// DeleteObjects takes at most this many keys.
    public static let deleteBatchSize = 1000

    public func name(key: String, as picture: PictureID) throws(PictureStoreError) {
        guard let keyed = objectKey(forKey: key) else { return }
        let object = objectKey(picture)
        try run { () throws(S3Error) in
            // A picture put there meanwhile is newer and stays.
            guard try client.head(object) == nil, try client.head(keyed) != nil else { return }
            try client.copy(keyed, to: object, contentType: "image/png")
        }
    }

    public func pictures(withPrefix prefix: String) throws(PictureStoreError) -> [PictureID] {
        var found: [PictureID] = []
        for kind in JobKind.allCases {
            let listing = self.prefix + kind.rawValue + "/" + (prefix.count >= 2 ? String(prefix.prefix(2)) + "/" : prefix)
            let objects = try run { () throws(S3Error) in try client.list(prefix: listing) }
            for object in objects where object.hasSuffix(".png") {
                let relative = String(object.dropFirst(self.prefix.count))
                if let picture = CacheLayout.picture(atRelativePath: relative), picture.workoutID.description.hasPrefix(prefix) {
                    found.append(picture)
                }
            }
        }
        return found
    }

    public func embeddedKey(of picture: PictureID) -> String? {
        guard let head = try? client.get(objectKey(picture), length: StoredPicture.headSize) else { return nil }
        return PNGText.value(of: CacheLayout.keyTextKeyword, in: head.bytes)
    }

    public func isNamed(_ picture: PictureID, key: String) -> Bool {
        guard let keyed = objectKey(forKey: key), let byPicture = try? client.head(objectKey(picture)), let byKey = try? client.head(keyed)
        else { return false }
        return !byPicture.etag.isEmpty && byPicture.etag == byKey.etag && byPicture.size == byKey.size
    }

    public func name(_ picture: PictureID, key: String) throws(PictureStoreError) {
        guard let keyed = objectKey(forKey: key) else { return }
        let object = objectKey(picture)
        try run { () throws(S3Error) in try client.copy(object, to: keyed, contentType: "image/png", cacheControl: Self.immutableCacheControl) }
    }

    public func keys(withPrefix prefix: String) throws(PictureStoreError) -> [String] {
        let listing = self.prefix + CacheLayout.keysFolder + "/" + (prefix.count >= 2 ? String(prefix.prefix(2)) + "/" : prefix)
        let objects = try run { () throws(S3Error) in try client.list(prefix: listing) }
        return objects.compactMap { object in
            guard object.hasSuffix(".png"), let name = object.split(separator: "/").last else { return nil }
            let key = String(name.dropLast(4))
            return CacheLayout.isCacheKey(key) && key.hasPrefix(prefix) ? key : nil
        }
    }

    public func ownerMarker() throws(PictureStoreError) -> String? {
        let object = prefix + CacheLayout.ownerMarkerName
        guard let found = try run({ () throws(S3Error) in try client.get(object, length: 4096) }) else { return nil }
        return String(decoding: found.bytes, as: UTF8.self)
    }

    public func writeOwnerMarker(_ text: String) throws(PictureStoreError) {
        let object = prefix + CacheLayout.ownerMarkerName
        try run { () throws(S3Error) in _ = try client.put(object, Array(text.utf8), contentType: "text/plain; charset=utf-8") }
    }

    /// One listing of at most one object under each picture folder of the prefix.
    public func holdsPictures() throws(PictureStoreError) -> Bool {
        for top in [CacheLayout.keysFolder] + JobKind.allCases.map(\.rawValue) {
            let listing = prefix + top + "/"
            if try !run({ () throws(S3Error) in try client.list(prefix: listing, maximum: 1) }).isEmpty { return true }
        }
        return false
    }

    /// Puts a small object under `PREFIX/.workfeed-probe/` and deletes it: the bucket is there,
    /// these credentials may write and delete, and the service answers.
    public func probe() throws(PictureStoreError) {
        let object = "\(prefix).workfeed-probe/\(Self.hostTag).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        try run { () throws(S3Error) in
            try client.put(object, [UInt8](repeating: 0x57, count: 1024), contentType: "application/octet-stream")
            try client.delete(object)
        }
    }

    /// Asks for the bucket (HeadBucket): there, these credentials accepted, the endpoint answering.
    public func checkReachable() throws(PictureStoreError) {
        try run { () throws(S3Error) in try client.headBucket() }
    }

    /// A bucket is never made by a program that uses it: a missing one is a mistake to report.
    public func createIfMissing() throws(PictureStoreError) -> Bool { false }

    /// Nothing is left behind: every object is put in one request (no multipart uploads).
    public func removeAbandonedWrites() -> Int { 0 }

    static let hostTag = ProcessInfo.processInfo.hostName.replacingOccurrences(of: "/", with: "_")

    func location(_ object: String) -> String { "s3://\(client.configuration.bucket)/\(object)" }

    /// Runs S3 requests, turning their errors into the store's.
    func run<T>(_ body: () throws(S3Error) -> T) throws(PictureStoreError) -> T {
        do {
            return try body()
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A store error with the code that S3's answer means, the S3 error kept as the cause.
    static func storeError(_ error: S3Error) -> PictureStoreError {
        let object = error.key.map { "s3://\(error.bucket)/\($0)" } ?? "s3://\(error.bucket)"
        if error.kind == .tooLarge {
            // Only a picture's read bounds its answer: an object larger than any picture is not one.
            var refused = PictureStoreError(refusal: .tooLarge, path: "\(object) at \(error.endpoint)")
            refused.step = error.operation
            refused.cause = error
            return refused
        }
        let code: PictureStoreError.Code =
            switch error.kind {
            case .notFound: .notFound
            case .denied: .denied
            case .unavailable: .unavailable
            case .full: .full
            case .corrupt, .conditionFailed, .tooLarge: .corrupt
            }
        return PictureStoreError(code, step: error.operation, path: "\(object) at \(error.endpoint)", cause: error)
    }
}

extension S3Error: PictureStoreCause {}
