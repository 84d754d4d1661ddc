public import WorkFeedModel

/// A job handed to a worker: its identity, the hashes its cache key is made of, and its series
/// exactly as stored.
public struct LeasedJob: Sendable, Hashable {
    public var jobID: Int64
    public var lease: UInt64
    /// The worker's key it was leased to.
    public var worker: String
    public var picture: PictureID
    /// The workout's owner: whose privacy zones the picture hides.
    public var owner: String
    public var routeHash: String
    public var heartRateHash: String
    public var route: [UInt8]
    public var heartRate: [UInt8]
}
