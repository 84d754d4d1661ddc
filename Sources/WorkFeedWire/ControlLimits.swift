/// What one control request may ask for (docs/PROTOCOL.md, "Limits and deadlines"). A request
/// over a limit is refused with an ERROR naming the field; the limits keep any one request's
/// work and answer small enough that the coordinator stays responsive to everyone else.
public enum ControlLimits {
    /// A request's JSON body (frame 3): room for an ENQUEUE of the most ids.
    public static let maximumBodyBytes = 8 << 20
    /// Workout ids in one ENQUEUE.
    public static let maximumEnqueueIDs = 100_000
    /// Workout ids in one DELETE.
    public static let maximumDeleteIDs = 10_000
    /// ENQUEUE priorities; `workctl request` uses 100.
    public static let priorities = -1_000_000...1_000_000
    /// FEED page size.
    public static let feedLimits = 1...1_000
    /// CHANGES page size.
    public static let changesLimits = 1...100_000
    /// FAILED rows.
    public static let failedLimits = 1...100_000
}
