/// How much a zip archive may make ``WorkoutFileReader`` inflate, so that a zip bomb is refused
/// instead of filling memory, disk or hours of CPU.
///
/// Sizes are checked against the central directory before anything is inflated, and inflating
/// stops with an error as soon as an entry gives more bytes than its directory record declares,
/// so the declared sizes are real bounds.
public struct ArchiveLimits: Sendable, Hashable {
    /// An entry that declares more uncompressed bytes than this is refused. 4 GiB.
    public var maxEntrySize: UInt64
    /// The uncompressed sizes of the entries read from one archive (entries of a zip inside it
    /// included) may add up to this much; entries past it are refused. 8 GiB.
    public var maxTotalSize: UInt64
    /// A deflated entry larger than ``ratioCheckMinimumSize`` whose uncompressed size is more than
    /// this many times its compressed size is refused as a bomb. 200: XML and GPX compress about
    /// 10 to 30 times, deflate's ceiling is 1032.
    public var maxCompressionRatio: UInt64
    /// Entries up to this uncompressed size are never refused for their ratio (a small file of
    /// repeated bytes compresses extremely well). 1 MiB.
    public var ratioCheckMinimumSize: UInt64
    /// Entries up to this size are inflated into memory; larger ones are streamed (XML formats) or
    /// inflated to a temporary file (a zip inside the zip). 64 MiB.
    public var inMemoryEntrySize: UInt64
    /// The central directory may list this many entries. 1,000,000.
    public var maxEntryCount: Int

    public init(
        maxEntrySize: UInt64 = 4 << 30, maxTotalSize: UInt64 = 8 << 30, maxCompressionRatio: UInt64 = 200,
        ratioCheckMinimumSize: UInt64 = 1 << 20, inMemoryEntrySize: UInt64 = 64 << 20, maxEntryCount: Int = 1_000_000
    ) {
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckMinimumSize = ratioCheckMinimumSize
        self.inMemoryEntrySize = inMemoryEntrySize
        self.maxEntryCount = maxEntryCount
    }

    public static let standard = ArchiveLimits()
}
