import ArgumentParser
import Foundation
import WorkFeedStore

/// Where workctl finds pictures: the store the coordinator and workers use, as seen from here.
/// Replies name pictures by kind, theme, scale and key; this resolves them.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The picture store as seen from here: a directory or s3://bucket/prefix (cache.directory; env WORKFEED_CACHE; default var/cache).")
    var cache: String = ProcessInfo.processInfo.environment["WORKFEED_CACHE"] ?? "var/cache"

    @Option(name: .long, help: "An S3-compatible service other than AWS, http(s)://host:port (store.s3.endpoint; env WORKFEED_S3_ENDPOINT).")
    var s3Endpoint: String?

    func validate() throws {
        do {
            _ = try StoreLocation(parsing: cache)
        } catch {
            throw ValidationError("--cache: \(error)")
        }
    }

    /// `--cache`, parsed (``validate()`` has checked it).
    var location: StoreLocation { (try? StoreLocation(parsing: cache)) ?? .directory(cache) }

    /// The store; one that cannot be made (an S3 store without credentials) is printed and ends
    /// workctl with 73, as the daemons end.
    func store() throws -> any PictureStore {
        do {
            return try PictureStores.open(
                location, s3: S3StoreSettings(endpoint: s3Endpoint ?? ProcessInfo.processInfo.environment["WORKFEED_S3_ENDPOINT"]))
        } catch {
            printError("the picture store \(location) cannot be used: \(error)")
            throw ExitCode(73)
        }
    }
}
