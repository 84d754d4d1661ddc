import Foundation
import NIOPosix
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// Pictures in the shared cache directory, by their by-content names
/// (``CacheLayout/relativePath(forKey:)``: `keys/9c/9c04….png`, hard links the workers make).
///
/// Files are read whole on NIO's blocking thread pool, never on the cooperative pool. A picture is
/// at most a few hundred KB, and files above ``maximumSize`` are refused rather than read.
struct DirectoryPictureStore: PictureStore {
    let root: String
    let threadPool: NIOThreadPool
    /// Larger files are not pictures this system draws (a 4096 × 4096 @3x PNG is far below it).
    static let maximumSize = 64 << 20

    func picture(key: String) async throws -> [UInt8]? {
        guard let relative = CacheLayout.relativePath(forKey: key) else { return nil }
        let path = root + "/" + relative
        return try await threadPool.runIfActive { try Self.read(path) }
    }

    /// The whole file, or `nil` when it does not exist.
    static func read(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw PictureStoreError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            if errno == EISDIR || errno == ESPIPE { return nil }
            throw PictureStoreError(path: path, reason: String(cString: strerror(errno)))
        }
        let size = Int(end)
        guard size <= maximumSize else { throw PictureStoreError(path: path, reason: "\(size) bytes, over \(maximumSize)") }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress! + offset, size - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR { return nil }
                throw PictureStoreError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            offset += count
        }
        return offset == size ? bytes : Array(bytes.prefix(offset))
    }
}

/// A picture file that exists but cannot be read.
struct PictureStoreError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot read \(path): \(reason)" }
}
