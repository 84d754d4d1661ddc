public import WorkFeedModel

/// A job handed to a worker: its identity, what its cache key is made of, and its series
/// exactly as stored.
public struct LeasedJob: Sendable, Hashable {
    public var jobID: Int64
    public var lease: UInt64
    /// The worker's key it was leased to.
    public var worker: String
    public var picture: PictureID
    /// The workout's hashes, owner (whose privacy zones the picture hides) and route box.
    public var inputs: PictureInputs
    public var route: [UInt8]
    public var heartRate: [UInt8]
    /// The owner's policy version when the job was leased, in an index of several writers (which
    /// raises it with every change of the owner's zones or settings that a key hashes): the
    /// coordinator reads the owner's zones and settings again when its copy is of another
    /// version, before it computes the job's key and cuts its route. 0 from an index of one
    /// writer, whose coordinator's copy is always current.
    public var policyVersion: Int64

    public var owner: String { inputs.owner }
    public var routeHash: String { inputs.routeHash }
    public var heartRateHash: String { inputs.heartRateHash }

    public init(
        jobID: Int64, lease: UInt64, worker: String, picture: PictureID, inputs: PictureInputs, route: [UInt8], heartRate: [UInt8],
        policyVersion: Int64 = 0
    ) {
        self.policyVersion = policyVersion
        self.jobID = jobID
        self.lease = lease
        self.worker = worker
        self.picture = picture
        self.inputs = inputs
        self.route = route
        self.heartRate = heartRate
    }
}
