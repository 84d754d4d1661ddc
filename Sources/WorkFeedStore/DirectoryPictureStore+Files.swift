import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The file operations the directory stores share (``DirectoryPictureStore``, ``DirectoryFileStore``):
/// directories made one level at a time, durable writes under a temporary name, reads that follow
/// no link out of the root.
extension DirectoryPictureStore {
    /// Makes `directory` unless it exists, and its parent first when that is missing too (the
    /// kind's directory, `route/`). The root is never made: a missing root is a mount that is not
    /// there, which the probe reports.
    static func makeDirectory(_ directory: String, parentToo: Bool) throws(PictureStoreError) {
        if mkdir(directory, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT && parentToo {
            try makeDirectory((directory as NSString).deletingLastPathComponent, parentToo: false)
            try makeDirectory(directory, parentToo: false)
            return
        }
        throw PictureStoreError(step: "mkdir", errno: errno, path: directory)
    }

    /// Writes `bytes` to `temporary` (created, never reused), flushes them to disk, and renames the
    /// file to `path`; on any failure the temporary file is removed.
    /// - Parameter mode: the file's permissions; narrower than 0644 they hold whatever the umask.
    static func writeDurably(_ bytes: [UInt8], to temporary: String, renamingTo path: String, mode: mode_t = 0o644) throws(PictureStoreError) {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw PictureStoreError(step: "create", errno: errno, path: temporary) }
        var failure: PictureStoreError?
        if mode & 0o077 == 0 && fchmod(descriptor, mode) != 0 {
            failure = PictureStoreError(step: "chmod", errno: errno, path: temporary)
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while failure == nil && offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = PictureStoreError(step: "write", errno: errno, path: temporary)
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = PictureStoreError(step: "fsync", errno: errno, path: temporary)
        }
        if close(descriptor) != 0 && failure == nil && errno != EINTR {
            // NFS reports some write errors only at close.
            failure = PictureStoreError(step: "close", errno: errno, path: temporary)
        }
        if failure == nil && rename(temporary, path) != 0 {
            failure = PictureStoreError(step: "rename", errno: errno, path: path)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Opens `relative` below `root` one name at a time (`openat`), following no symbolic link:
    /// each directory on the way with `O_NOFOLLOW | O_DIRECTORY`, the file with `O_NOFOLLOW` (and
    /// `O_NONBLOCK`, so that a FIFO planted there cannot block the reader), then checks that it is a
    /// regular file. The root itself is the operator's configuration and may be a link.
    /// - Returns: the open descriptor (the caller closes it), or `nil` when nothing is there.
    /// - Throws: ``PictureStoreError`` with a ``PictureStoreError/refusal`` for a link, a
    ///   directory component that is not a directory, or a file that is not a regular file.
    static func openInside(root: String, relative: String) throws(PictureStoreError) -> Int32? {
        let path = root + "/" + relative
        var directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw PictureStoreError(step: "open", errno: errno, path: root)
        }
        let names = relative.split(separator: "/").map(String.init)
        for (number, name) in names.enumerated() {
            let last = number == names.count - 1
            let flags = last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC : O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC
            let next = openat(directory, name, flags)
            let failure = errno
            close(directory)
            guard next >= 0 else {
                switch failure {
                case ENOENT: return nil
                // ELOOP: the name is a symbolic link; ENOTDIR: a directory on the way is a file or a link.
                case ELOOP, ENOTDIR: throw PictureStoreError(refusal: .symbolicLink, path: path)
                default: throw PictureStoreError(step: "open", errno: failure, path: path)
                }
            }
            directory = next
        }
        var status = stat()
        guard fstat(directory, &status) == 0 else {
            let failure = PictureStoreError(step: "stat", errno: errno, path: path)
            close(directory)
            throw failure
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(directory)
            throw PictureStoreError(refusal: .notRegularFile, path: path)
        }
        return directory
    }

    /// Whether a regular file is at `relative` below `root`, reached without following a link.
    static func isRegularFileInside(root: String, relative: String) -> Bool {
        guard let descriptor = try? openInside(root: root, relative: relative) else { return false }
        close(descriptor)
        return true
    }

    /// The whole regular file at `relative` below `root` (``openInside(root:relative:)``), or `nil`
    /// when nothing is there.
    static func readInside(root: String, relative: String, maximumSize: Int = maximumPictureSize) throws(PictureStoreError) -> [UInt8]? {
        guard let descriptor = try openInside(root: root, relative: relative) else { return nil }
        defer { close(descriptor) }
        return try read(descriptor, path: root + "/" + relative, maximumSize: maximumSize)
    }

    /// A picture's file (``readInside(root:relative:maximumSize:)``): one larger than any picture
    /// drawn is refused (``PictureStoreError/Refusal/tooLarge``), its size read from the file
    /// before a byte of it is.
    static func readPicture(root: String, relative: String) throws(PictureStoreError) -> [UInt8]? {
        do {
            return try readInside(root: root, relative: relative, maximumSize: StoredPicture.maximumBytes)
        } catch  where error.errno == EFBIG {
            throw PictureStoreError(refusal: .tooLarge, path: root + "/" + relative)
        }
    }

    /// The whole of an open file, from its start; larger than `maximumSize` is `corrupt` (EFBIG).
    static func read(_ descriptor: Int32, path: String, maximumSize: Int = maximumPictureSize) throws(PictureStoreError) -> [UInt8]? {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            if errno == EISDIR || errno == ESPIPE { return nil }
            throw PictureStoreError(step: "read", errno: errno, path: path)
        }
        let size = Int(end)
        guard size <= maximumSize else { throw PictureStoreError(step: "read", errno: EFBIG, path: path) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress! + offset, size - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR { return nil }
                throw PictureStoreError(step: "read", errno: errno, path: path)
            }
            if count == 0 { break }
            offset += count
        }
        return offset == size ? bytes : Array(bytes.prefix(offset))
    }

    /// Removes a file; one that is not there is fine.
    static func remove(_ path: String) throws(PictureStoreError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw PictureStoreError(step: "unlink", errno: errno, path: path) }
    }
}
