/// What one control request may ask for (docs/PROTOCOL.md, "Limits and deadlines"). A request
/// over a limit is refused with an ERROR naming the field; the limits keep any one request's
/// work and answer small enough that the coordinator stays responsive to everyone else.
public enum ControlLimits {
    /// A request's JSON body (frame 3): room for an ENQUEUE of the most ids.
    public static let maximumBodyBytes = 8 << 20
    /// Workout ids in one ENQUEUE.
    public static let maximumEnqueueIDs = 100_000
    /// Workouts in one UPLOAD (one file's).
    public static let maximumUploadWorkouts = 1_000
    /// Workout ids in one DELETE.
    public static let maximumDeleteIDs = 10_000
    /// ENQUEUE priorities; `workctl request` uses 100.
    public static let priorities = -1_000_000...1_000_000
    /// FEED page size.
    public static let feedLimits = 1...1_000
    /// CHANGES page size: at most about 2 MB of reply.
    public static let changesLimits = 1...20_000
    /// CHANGES page size when each change carries its workout (`workouts`): a FEED page's.
    public static let changesWithWorkoutsLimits = feedLimits
    /// FAILED rows: at most about 3 MB of reply.
    public static let failedLimits = 1...10_000
    /// A FEED page stops before its items pass this many bytes, whatever its limit; its `next`
    /// goes on from there.
    public static let feedReplyBudgetBytes = 4 << 20
    /// Requests a client may have in flight (received, not yet answered) before the next is
    /// refused with "busy" (the coordinator's `control.max_in_flight`, this by default).
    public static let defaultRequestsInFlight = 32
    /// Bytes of requests a client may have in flight (`control.max_in_flight_mb`, this by
    /// default); a request is always taken when the client has none in flight, so one IMPORT of
    /// the largest message fits.
    public static let defaultBytesInFlight = 320 << 20
}
