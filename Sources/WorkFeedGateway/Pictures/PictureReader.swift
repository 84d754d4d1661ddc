import NIOPosix
import WorkFeedStore

/// The gateway's reads of the ``PictureStore`` (WorkFeedStore), from async code: each read runs
/// on NIO's blocking thread pool, never on the cooperative pool. The gateway only reads; workers
/// write and the coordinator removes.
struct PictureReader: Sendable {
    let store: any PictureStore
    let threadPool: NIOThreadPool

    /// The PNG whose cache key is `key`, or `nil` when there is none.
    /// - Parameter key: a validated cache key.
    /// - Throws: ``PictureStoreError`` when the store cannot be read (not when the picture is absent).
    func picture(key: String) async throws -> [UInt8]? {
        let store = store
        return try await threadPool.runIfActive { try store.picture(key: key) }
    }
}
