import Foundation
import Logging
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStore

/// Finds pictures nothing refers to, once per start (with several coordinators, once a term of
/// the one that does the periodic work), and hands them to the dispatcher to remove: by-content names (`keys/…`) that no job stores, and by-picture names holding a picture their
/// own job does not store (a workout deleted, or a job drawn again, while a worker wrote; a worker
/// that wrote and died before it reported; a late report lost in a restart).
///
/// It looks on a thread of its own with a read-only connection to the index, one folder (two hex
/// digits) at a time, and decides nothing itself: what it found goes to the index thread
/// (``Inbox/add(leftovers:)``), which checks each one again against the jobs and the leases
/// (a worker may be drawing that very key) inside its transaction, and removes it after the commit
/// only if nothing refers to it then (``IndexTransaction/releasedPictures()``). A by-picture name
/// is removed only if it still holds that key when it is removed
/// (``PictureStore/delete(_:ifKey:)``). A file it cannot read (no embedded key) is left alone.
enum OrphanSweep {
    struct Counts: Sendable, CustomStringConvertible {
        var keys = 0
        var pictures = 0
        var orphanKeys = 0
        var orphanPictures = 0
        var description: String {
            "looked at \(keys) by-content and \(pictures) by-picture names; handed over \(orphanKeys) and \(orphanPictures) nothing refers to"
        }
    }

    /// Starts the sweep of `store` against the index, on a read-only connection of its own; what
    /// it finds goes to `inbox`.
    static func start(index: some IndexBackend, store: any PictureStore, inbox: Inbox, logger: Logger) -> SweepThread {
        SweepThread(name: "coordinator-orphans") { thread in
            do {
                let counts = try sweep(index: index, store: store, thread: thread) { inbox.add(leftovers: $0) }
                if counts.orphanKeys + counts.orphanPictures > 0 {
                    logger.notice("pictures nothing refers to handed over for removal", metadata: ["counts": "\(counts)"])
                } else {
                    logger.debug("no picture left over", metadata: ["counts": "\(counts)"])
                }
            } catch {
                logger.warning("the sweep for pictures nothing refers to stopped", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Looks through every folder of `store`, handing each folder's candidates to `found`.
    static func sweep(
        index backend: some IndexBackend, store: any PictureStore, thread: SweepThread, found: ([LeftoverPicture]) -> Void
    ) throws -> Counts {
        var counts = Counts()
        var logger = Logger(label: "workfeed.coordinator.orphans")
        logger.logLevel = .error
        let index = try backend.openReader(logger: logger)
        let hex = Array("0123456789abcdef")
        for high in hex {
            for low in hex {
                guard !thread.isStopping else { return counts }
                let prefix = String([high, low])
                let keys = try store.keys(withPrefix: prefix)
                let pictures = try store.pictures(withPrefix: prefix)
                counts.keys += keys.count
                counts.pictures += pictures.count
                let leftovers = try index.read { reader in
                    var found = try keys.filter { try !reader.isStored(key: $0) }.map { LeftoverPicture(picture: nil, key: $0) }
                    for picture in pictures {
                        let stored = try reader.storedKey(of: picture)
                        // The current picture, named by its key too: nothing to read. Otherwise
                        // the key in its bytes says whose it is.
                        if let stored, store.isNamed(picture, key: stored) { continue }
                        guard let key = store.embeddedKey(of: picture), CacheLayout.isCacheKey(key), key != stored else { continue }
                        found.append(LeftoverPicture(picture: picture, key: key))
                    }
                    return found
                }
                counts.orphanKeys += leftovers.count { $0.picture == nil }
                counts.orphanPictures += leftovers.count { $0.picture != nil }
                found(leftovers)
            }
        }
        return counts
    }
}
