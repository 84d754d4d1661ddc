import Crypto
import Foundation
import Logging
import WorkFeedConfig
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore
import WorkFeedPrivacy

extension Dispatcher {
    /// The secret (from `privacy.secret_file`, or made once and kept in the index), the end trim,
    /// and every owner's zones.
    /// - Throws: ``CoordinatorError`` naming the secret file when it cannot be read or is too short.
    static func loadPrivacy(configuration: CoordinatorConfiguration, index: Index) throws -> PrivacyPolicies {
        var secret: [UInt8]
        if configuration.privacySecretFile.isEmpty {
            secret = try index.write { try $0.privacySecret() }
        } else {
            guard let data = FileManager.default.contents(atPath: configuration.privacySecretFile) else {
                throw CoordinatorError(.privacySecret, "privacy.secret_file: cannot read \(configuration.privacySecretFile)")
            }
            secret = Array(data)
            guard secret.count >= PrivacyPolicy.minimumSecretBytes else {
                throw CoordinatorError(
                    .privacySecret,
                    "privacy.secret_file: \(configuration.privacySecretFile) holds \(secret.count) bytes, at least \(PrivacyPolicy.minimumSecretBytes) are needed"
                )
            }
        }
        let zones = try index.read { reader in
            try Dictionary(uniqueKeysWithValues: reader.ownersWithPrivacyZones().map { ($0, try reader.privacyZones(owner: $0)) })
        }
        return PrivacyPolicies(secret: secret, endTrimMetres: configuration.privacyEndTrimMetres, zones: zones)
    }

    enum VisibleRoute {
        /// Nothing hidden: the stored bytes go as they are.
        case unchanged
        /// The visible pieces, encoded.
        case cut([UInt8])
        /// Nothing left to draw.
        case whollyHidden
    }

    /// The part of a leased job's route its picture may show. The cut is placed by the route's
    /// content hash (``PrivacyPolicy/cut(_:workoutID:)``), which the cache key already holds, so
    /// a picture drawn again is cut the same way.
    static func visibleRoute(_ job: LeasedJob, policy: PrivacyPolicy) -> VisibleRoute {
        guard !policy.hidesNothing else { return .unchanged }
        // A route that cannot be read is sent as stored: the worker reports it unreadable.
        guard let route = try? SeriesCodec.decodeRoute(job.route) else { return .unchanged }
        let result = policy.cut(route, workoutID: job.routeHash)
        if result.isWhollyHidden { return .whollyHidden }
        return result.isCut ? .cut(SeriesCodec.encode(result.route)) : .unchanged
    }
}

extension Dispatcher {
    /// The kept originals' store, ready: `originals.directory` (or its default) opened through the
    /// store seam, checked to be outside the picture store, prepared (made private, sealed), with
    /// what earlier releases kept elsewhere moved in: `<cache>/files/` (before issue 23), and
    /// `originals/` beside the index when the default is a bucket now (before issue 26).
    /// - Throws: ``CoordinatorError``: `store` (exit 73) when a bucket cannot be used, naming it,
    ///   its endpoint and what the service said; `originals` otherwise.
    static func openOriginals(
        _ configuration: CoordinatorConfiguration, cache: StoreLocation, logger: Logger
    ) throws(CoordinatorError) -> OriginalFileStore {
        if let problem = configuration.originalsProblem() {
            throw CoordinatorError(.originals, "originals.directory = '\(configuration.originalsPath)': \(problem)")
        }
        let location: StoreLocation
        let files: any FileStore
        do {
            location = try configuration.originalsLocation()
            files = try FileStores.open(location, s3: configuration.s3Store)
        } catch {
            throw CoordinatorError(.store, "cannot start: the kept originals' store '\(configuration.originalsPath)' cannot be used", cause: error)
        }
        let originals = OriginalFileStore(files: files, key: try loadOriginalsKey(configuration))
        var sources: [OriginalFileStore.Source] = []
        if let directory = cache.directory {
            let legacy = DirectoryFileStore(root: OriginalFileStore.legacyDirectory(cacheDirectory: directory))
            sources.append(OriginalFileStore.Source(directory: legacy, removesStrays: true))
        }
        if configuration.originalsDirectory.isEmpty && location != .directory(configuration.originalsBesideIndex) {
            sources.append(OriginalFileStore.Source(directory: DirectoryFileStore(root: configuration.originalsBesideIndex), removesStrays: false))
        }
        do {
            try originals.prepare(movingFrom: sources, logger: logger)
        } catch let error as PictureStoreError where !files.isLocal {
            throw CoordinatorError(.store, "cannot start: the kept originals' store '\(configuration.originalsPath)' cannot be used", cause: error)
        } catch {
            throw CoordinatorError(.originals, "originals.directory = '\(configuration.originalsPath)' cannot be made private", cause: error)
        }
        return originals
    }

    /// The key kept originals are sealed with (`originals.key_file`), or `nil` when none is set.
    /// - Throws: ``CoordinatorError`` naming the file when it cannot be read or is too short.
    static func loadOriginalsKey(_ configuration: CoordinatorConfiguration) throws(CoordinatorError) -> SymmetricKey? {
        let file = configuration.originalsKeyFile
        guard !file.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CoordinatorError(.originals, "originals.key_file: cannot read \(file)")
        }
        guard data.count >= OriginalFileStore.minimumKeyFileBytes else {
            throw CoordinatorError(
                .originals, "originals.key_file: \(file) holds \(data.count) bytes, at least \(OriginalFileStore.minimumKeyFileBytes) are needed")
        }
        return OriginalFileStore.key(fromFile: Array(data))
    }
}
