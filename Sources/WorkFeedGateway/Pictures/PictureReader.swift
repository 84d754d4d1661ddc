import WorkFeedConfig
import WorkFeedStore
import WorkFeedThreads

/// The gateway's reads of the ``PictureStore`` (WorkFeedStore), from async code: each read runs
/// on a thread pool of its own (``BlockingWork``), never on the cooperative pool. The gateway
/// only reads; workers write and the coordinator removes.
struct PictureReader: Sendable {
    let store: any PictureStore
    let work: BlockingWork

    /// Reads running or waiting at once: past it a picture is answered 503 (a read takes well
    /// under a millisecond from a warm page cache, so this many waiting is a disk that stalled).
    static let maximumReads = 4_096

    /// The reading threads. A read from a bucket is a round trip spent waiting (tens of
    /// milliseconds), not a core's work: with one thread a core (NIO's shared pool, before),
    /// an S3-backed gateway read about 40 uncached pictures a second, and two slow reads held
    /// every other client's. Each client has at most `pictures.reads_per_client` (8) of them.
    static let threads = 32

    /// The PNG whose cache key is `key`, or `nil` when there is none.
    /// - Parameter key: a validated cache key.
    /// - Throws: ``PictureStoreError`` when the store cannot be read (not when the picture is
    ///   absent); ``BlockingWorkError`` past ``maximumReads``.
    func picture(key: String) async throws -> [UInt8]? {
        let store = store
        return try await work.run { try store.picture(key: key) }
    }
}
