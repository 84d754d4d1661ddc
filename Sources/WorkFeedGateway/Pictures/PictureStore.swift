import Foundation
import WorkFeedModel

/// Where the gateway reads pictures by their cache key. The shared directory is the first
/// implementation (``DirectoryPictureStore``); an S3-compatible object store is the next
/// (DESIGN.md, "Cache layout"), behind the same protocol.
///
/// Implementations are read-only, are called from async code, and must not block the cooperative
/// pool (a file read goes to a thread pool).
protocol PictureStore: Sendable {
    /// The PNG whose cache key is `key`, or `nil` when there is none.
    /// - Parameter key: a validated cache key (``CacheLayout/isCacheKey(_:)``).
    /// - Throws: an error when the store cannot be read (not when the picture is absent).
    func picture(key: String) async throws -> [UInt8]?
}
