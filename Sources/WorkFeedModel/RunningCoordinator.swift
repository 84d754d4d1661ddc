/// A coordinator of an index several share (PostgreSQL), as it registered and was last seen (the
/// database's clock), and whether it does the periodic work (the start sweeps, summary
/// rebuilds): what the index lists (`IndexReading.coordinators()`) and STATUS carries.
public struct RunningCoordinator: Codable, Sendable, Hashable {
    public var id: String
    /// Where its workers and clients connect.
    public var endpoints: String
    /// Seconds since it last said it lives (about every second while it runs).
    public var silentSeconds: Double
    public var leads: Bool

    public init(id: String, endpoints: String, silentSeconds: Double, leads: Bool) {
        self.id = id
        self.endpoints = endpoints
        self.silentSeconds = silentSeconds
        self.leads = leads
    }
}
