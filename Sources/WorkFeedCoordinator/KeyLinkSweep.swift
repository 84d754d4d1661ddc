import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore

/// Gives the pictures drawn before by-content names existed their name under `keys/`
/// (``CacheLayout/relativePath(forKey:)``), so that the gateway serves them without drawing them
/// again. Runs once per start (with several coordinators, once a term of the one that does the
/// periodic work), on a thread of its own with a read-only connection to the index (never on
/// the index thread), and only links a file whose own embedded cache key (the PNG's
/// `workfeed:cache-key` text, which workers write) is the job's: a picture redrawn meanwhile under
/// another key is never named by the old one.
enum KeyLinkSweep {
    struct Counts: Sendable, CustomStringConvertible {
        var linked = 0
        var alreadyNamed = 0
        var missing = 0
        var otherKey = 0
        var description: String { "linked \(linked), already named \(alreadyNamed), no file \(missing), file of another key \(otherKey)" }
    }

    /// Starts the sweep of the index (on a read-only connection of its own) over the pictures in `store`.
    static func start(index: some IndexBackend, store: any PictureStore, logger: Logger) -> SweepThread {
        SweepThread(name: "coordinator-key-links") { thread in
            do {
                let counts = try sweep(index: index, store: store, thread: thread)
                if counts.linked > 0 || counts.otherKey > 0 {
                    logger.notice("by-content picture names made for pictures drawn before them", metadata: ["counts": "\(counts)"])
                } else {
                    logger.debug("by-content picture names: nothing to do", metadata: ["counts": "\(counts)"])
                }
            } catch {
                logger.warning("by-content picture names could not be made", metadata: ["error": "\(error)"])
            }
        }
    }

    static func sweep(index backend: some IndexBackend, store: any PictureStore, thread: SweepThread) throws -> Counts {
        var counts = Counts()
        var logger = Logger(label: "workfeed.coordinator.key-links")
        logger.logLevel = .error
        let index = try backend.openReader(logger: logger)
        try index.read { reader in
            try reader.generatedPictures { picture, key in
                guard !thread.isStopping else { return false }
                guard CacheLayout.isCacheKey(key) else { return true }
                if store.contains(key: key) {
                    counts.alreadyNamed += 1
                    return true
                }
                guard let bytes = try? store.picture(picture) else {
                    counts.missing += 1
                    return true
                }
                // A picture's text chunks come right after its header.
                guard PNGText.value(of: "workfeed:cache-key", in: Array(bytes.prefix(4096))) == key else {
                    counts.otherKey += 1
                    return true
                }
                if (try? store.name(picture, key: key)) != nil { counts.linked += 1 }
                return true
            }
        }
        return counts
    }
}
