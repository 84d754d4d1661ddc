import ArgumentParser
import Foundation
import WorkFeedStore

/// Where workctl finds pictures: the store the coordinator and workers use, as seen from here.
/// Replies name pictures by kind, theme, scale and key; this resolves them.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The picture cache as seen from here (cache.directory; env WORKFEED_CACHE; default var/cache).")
    var cache: String = ProcessInfo.processInfo.environment["WORKFEED_CACHE"] ?? "var/cache"

    /// The cache's absolute path (what a page's links and printed paths start with).
    var directory: String { URL(fileURLWithPath: cache).standardizedFileURL.path }

    func store() -> any PictureStore { PictureStores.open(directory) }
}
