import Foundation
import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

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

    /// Starts the sweep of the index at `indexPath` over the cache at `cacheDirectory`.
    init(indexPath: String, cacheDirectory: String, logger: Logger) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                let counts = try sweep(indexPath: indexPath, cacheDirectory: cacheDirectory)
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

    func sweep(indexPath: String, cacheDirectory: String) throws -> Counts {
        var counts = Counts()
        var logger = Logger(label: "workfeed.coordinator.key-links")
        logger.logLevel = .error
        let index = try WorkoutIndex(readingFrom: indexPath, logger: logger)
        try index.read { reader in
            try reader.generatedPictures { picture, key in
                guard !stopping.load(ordering: .relaxed) else { return false }
                guard let keyed = CacheLayout.relativePath(forKey: key) else { return true }
                let name = cacheDirectory + "/" + keyed
                if access(name, F_OK) == 0 {
                    counts.alreadyNamed += 1
                    return true
                }
                let path = cacheDirectory + "/" + CacheLayout.relativePath(for: picture)
                guard let head = Self.head(of: path) else {
                    counts.missing += 1
                    return true
                }
                guard PNGText.value(of: "workfeed:cache-key", in: head) == key else {
                    counts.otherKey += 1
                    return true
                }
                if Self.link(path, as: name) { counts.linked += 1 }
                return true
            }
        }
        return counts
    }

    /// The first 4 KiB of a file (a picture's text chunks come right after its header), or `nil`.
    static func head(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 4096) }
        return count > 0 ? Array(bytes.prefix(count)) : nil
    }

    /// A hard link under a temporary name, renamed over `name`, as workers make them.
    static func link(_ path: String, as name: String) -> Bool {
        let directory = (name as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = "\(directory)/.\((name as NSString).lastPathComponent).coordinator.\(getpid()).tmp"
        guard Glibc.link(path, temporary) == 0 else { return false }
        guard rename(temporary, name) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Ends the sweep early and waits for its thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }
}
