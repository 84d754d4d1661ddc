import Foundation
import WorkFeedModel

/// Reads a file in chunks for ``XMLPullReader``, so that a document larger than memory can be
/// parsed.
final class XMLFileSource: XMLByteSource {
    private let handle: FileHandle
    private let path: String

    /// - Throws: ``ImportError`` when the file cannot be opened or is not a regular file.
    init(path: String) throws(ImportError) {
        self.handle = try RegularFile.open(path)
        self.path = path
    }

    deinit { try? handle.close() }

    func read(into buffer: inout [UInt8], maxCount: Int) throws(ImportError) -> Int {
        let data: Data?
        do {
            data = try handle.read(upToCount: maxCount)
        } catch {
            throw ImportError(file: path, message: "read failed: \(error.localizedDescription)")
        }
        guard let data, !data.isEmpty else { return 0 }
        buffer.append(contentsOf: data)
        return data.count
    }
}
