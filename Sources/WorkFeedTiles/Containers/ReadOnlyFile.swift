#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// A file opened read-only and read with `pread`, which keeps no file position: any thread may
/// read any range at the same time.
final class ReadOnlyFile: RangeReader {
    let path: String
    /// The size when it was opened.
    let size: UInt64
    private let descriptor: Int32

    /// - Throws: ``TileError`` `.unreadable` naming the path and the system's reason.
    init(path: String) throws(TileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TileError(.unreadable, "cannot open the file: \(String(cString: strerror(errno)))", path: path)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TileError(.unreadable, "cannot read the file's size: \(reason)", path: path)
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            close(descriptor)
            throw TileError(.unreadable, "a directory, not a file", path: path)
        }
        self.path = path
        self.size = UInt64(max(0, status.st_size))
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    var location: String { path }

    /// A local file has no version but its bytes: its identity hashes what it indexes.
    var remoteVersion: String? { nil }

    /// Exactly `count` bytes at `offset`.
    ///
    /// - Throws: ``TileError`` `.unreadable` when the read fails or the file ends first (it
    ///   shrank since it was opened: callers check ranges against ``size`` before reading).
    func read(at offset: UInt64, count: Int) throws(TileError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: TileError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            while initialized < count {
                let result = pread(descriptor, base + initialized, count - initialized, off_t(offset) + off_t(initialized))
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = TileError(
                        .unreadable, "read failed at offset \(offset + UInt64(initialized)): \(String(cString: strerror(errno)))",
                        path: path)
                    return
                }
                if result == 0 {
                    failure = TileError(
                        .unreadable,
                        "the file ends at \(offset + UInt64(initialized)) bytes, before the \(count) bytes at \(offset) (it changed?)",
                        path: path)
                    return
                }
                initialized += result
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
