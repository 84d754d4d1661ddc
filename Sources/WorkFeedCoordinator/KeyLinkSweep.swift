import Foundation
import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore

/// Gives the pictures drawn before by-content names existed their name under `keys/`
/// (``CacheLayout/relativePath(forKey:)``), so that the gateway serves them without drawing them
/// again. Runs once per start, on a thread of its own with a read-only connection to the index
/// (never on the index thread), and only links a file whose own embedded cache key (the PNG's
/// `workfeed:cache-key` text, which workers write) is the job's: a picture redrawn meanwhile under
/// another key is never named by the old one.
final class KeyLinkSweep: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    struct Counts: Sendable, CustomStringConvertible {
        var linked = 0
        var alreadyNamed = 0
        var missing = 0
        var otherKey = 0
        var description: String { "linked \(linked), already named \(alreadyNamed), no file \(missing), file of another key \(otherKey)" }
    }

    /// Starts the sweep of the index at `indexPath` over the pictures in `store`.
    init(indexPath: String, store: any PictureStore, logger: Logger) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                let counts = try sweep(indexPath: indexPath, store: store)
                if counts.linked > 0 || counts.otherKey > 0 {
                    logger.notice("by-content picture names made for pictures drawn before them", metadata: ["counts": "\(counts)"])
                } else {
                    logger.debug("by-content picture names: nothing to do", metadata: ["counts": "\(counts)"])
                }
            } catch {
                logger.warning("by-content picture names could not be made", metadata: ["error": "\(error)"])
            }
        }
        thread.name = "coordinator-key-links"
        thread.start()
    }

    func sweep(indexPath: String, store: any PictureStore) throws -> Counts {
        var counts = Counts()
        var logger = Logger(label: "workfeed.coordinator.key-links")
        logger.logLevel = .error
        let index = try WorkoutIndex(readingFrom: indexPath, logger: logger)
        try index.read { reader in
            try reader.generatedPictures { picture, key in
                guard !stopping.load(ordering: .relaxed) else { return false }
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

    /// Ends the sweep early and waits for its thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
