import Foundation
import WorkFeedModel

/// Opens files for reading only when they are regular files. A named pipe called `x.gpx` would
/// block `open` (and then `read`) until a writer came; a device or a socket is not a workout
/// either. The file is opened without blocking, checked with `fstat`, and only then switched to
/// blocking reads, so there is no window between the check and the open.
enum RegularFile {
    /// Opens `path` for reading.
    /// - Parameter name: the name used in errors (`path` when `nil`).
    /// - Throws: ``ImportError`` when it cannot be opened or is not a regular file.
    static func open(_ path: String, name: String? = nil) throws(ImportError) -> FileHandle {
        let descriptor = try openDescriptor(path, name: name).descriptor
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Opens `path` for reading without blocking (reads of a regular file never block) and checks
    /// it is a regular file.
    /// - Returns: the descriptor, which the caller closes, and the file's size.
    /// - Throws: ``ImportError`` when it cannot be opened or is not a regular file.
    static func openDescriptor(_ path: String, name: String? = nil) throws(ImportError) -> (descriptor: Int32, size: UInt64) {
        let name = name ?? path
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImportError(file: name, message: "cannot open the file: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ImportError(file: name, message: "cannot read the file's type: \(reason)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ImportError(file: name, message: "not a regular file (\(kind(status.st_mode))): not read")
        }
        return (descriptor, UInt64(max(0, status.st_size)))
    }

    /// Reads a regular file whole.
    /// - Throws: ``ImportError`` as ``open(_:name:)``, or when reading fails.
    static func read(_ path: String, name: String? = nil) throws(ImportError) -> [UInt8] {
        let handle = try open(path, name: name)
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.readToEnd() ?? Data())
        } catch {
            throw ImportError(file: name ?? path, message: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// Whether `path` is a regular file (following symbolic links), without opening it.
    static func isRegular(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a named pipe"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "not a plain file"
        }
    }
}

/// Hashes and measures a file's bytes as a reader goes through them, and keeps them while they
/// stay under a limit, so that a file read as a stream (an Apple Health export, a large GPX) is
/// still described (``WorkoutFile``) and, when small enough, kept as the original.
final class FileCapture {
    private var hasher = SHA256()
    private(set) var size: Int64 = 0
    private var kept: [UInt8]?
    private let keepLimit: Int

    /// - Parameter keepLimit: bytes kept at most; past it ``original`` is `nil`.
    init(keepLimit: Int) {
        self.keepLimit = keepLimit
        kept = keepLimit > 0 ? [] : nil
    }

    /// Describes bytes already in memory.
    convenience init(bytes: [UInt8], keepLimit: Int) {
        self.init(keepLimit: 0)
        add(bytes[...])
        kept = bytes.count <= keepLimit ? bytes : nil
    }

    func add(_ bytes: ArraySlice<UInt8>) {
        hasher.update(bytes)
        size += Int64(bytes.count)
        if kept != nil {
            if size <= Int64(keepLimit) { kept?.append(contentsOf: bytes) } else { kept = nil }
        }
    }

    /// The bytes, when they were all kept.
    var original: [UInt8]? { kept }

    func file(name: String, format: String) -> WorkoutFile {
        var copy = hasher
        return WorkoutFile(name: name, size: size, sha256: copy.finalize().hexString, format: format)
    }
}

/// An ``XMLByteSource`` that passes every byte it hands out through a ``FileCapture``.
struct CapturingSource: XMLByteSource {
    var inner: any XMLByteSource
    let capture: FileCapture

    mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(ImportError) -> Int {
        let before = buffer.count
        let count = try inner.read(into: &buffer, maxCount: maxCount)
        if count > 0 { capture.add(buffer[before..<before + count]) }
        return count
    }
}
