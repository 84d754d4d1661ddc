import Foundation
import WorkFeedModel

/// Random access to the bytes of a zip archive: a file on disk, or an archive held in memory (a
/// small zip inside a zip).
protocol ZipByteSource: AnyObject {
    /// The archive's size in bytes.
    var size: UInt64 { get }

    /// Copies up to `count` bytes starting at `offset` to `destination`.
    /// - Returns: how many bytes were copied; fewer than `count` only at the end of the archive.
    func read(at offset: UInt64, count: Int, into destination: UnsafeMutablePointer<UInt8>) throws(ImportError) -> Int
}

extension ZipByteSource {
    /// Up to `count` bytes at `offset`; fewer only at the end of the archive.
    func bytes(at offset: UInt64, count: Int) throws(ImportError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: ImportError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ImportError) {
                initialized = try read(at: offset, count: count, into: buffer.baseAddress!)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// An archive file read with `pread`, so that a multi-gigabyte `export.zip` is never loaded whole.
final class ZipFileSource: ZipByteSource {
    let size: UInt64
    private let descriptor: Int32
    /// The name used in errors.
    private let name: String

    /// - Throws: ``ImportError`` naming `name` when the file cannot be opened.
    init(path: String, name: String) throws(ImportError) {
        let (descriptor, size) = try RegularFile.openDescriptor(path, name: name)
        self.descriptor = descriptor
        self.size = size
        self.name = name
    }

    deinit { close(descriptor) }

    func read(at offset: UInt64, count: Int, into destination: UnsafeMutablePointer<UInt8>) throws(ImportError) -> Int {
        var done = 0
        while done < count {
            let result = pread(descriptor, destination + done, count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw ImportError(file: name, message: "read failed at offset \(offset + UInt64(done)): \(reason)")
            }
            if result == 0 { break }
            done += result
        }
        return done
    }
}

/// An archive held in memory.
final class ZipMemorySource: ZipByteSource {
    private let storage: [UInt8]

    init(_ bytes: [UInt8]) { self.storage = bytes }

    var size: UInt64 { UInt64(storage.count) }

    func read(at offset: UInt64, count: Int, into destination: UnsafeMutablePointer<UInt8>) throws(ImportError) -> Int {
        guard offset < size else { return 0 }
        let start = Int(offset)
        let available = min(count, storage.count - start)
        storage.withUnsafeBufferPointer { bytes in
            destination.update(from: bytes.baseAddress! + start, count: available)
        }
        return available
    }
}
