/// The bytes of a tileset archive, read by offset and length from any thread at once: a local
/// file (``ReadOnlyFile``, `pread`) or a remote archive (``RemoteRangeReader``, HTTP range
/// requests). ``PMTilesSource`` reads through it and does not know which one it has.
///
/// A reader checks every range against ``size`` before it reads, and throws rather than returns
/// fewer bytes than asked.
protocol RangeReader: Sendable {
    /// Where the bytes are, for messages: a path or a URL.
    var location: String { get }
    /// The archive's size when it was opened.
    var size: UInt64 { get }
    /// What names this version of a remote archive besides its bytes: the server's `ETag`, else
    /// its `Last-Modified` (empty when it sends neither); `nil` for a local file.
    var remoteVersion: String? { get }

    /// Exactly `count` bytes at `offset`.
    ///
    /// - Throws: ``TileError``: `.unreadable` for a range past ``size`` or a file that cannot be
    ///   read, `.unavailable` when a remote archive cannot give the bytes now.
    func read(at offset: UInt64, count: Int) throws(TileError) -> [UInt8]
}

extension RangeReader {
    /// Up to `count` bytes from the start, fewer for a shorter archive (for telling formats apart).
    func prefix(_ count: Int) throws(TileError) -> [UInt8] {
        try read(at: 0, count: Int(min(UInt64(count), size)))
    }
}
