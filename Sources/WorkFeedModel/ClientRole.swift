/// What a key may do: each role has its own list of keys in the coordinator's configuration
/// (`security.worker_keys`, `security.operator_keys`, `security.gateway_keys`), and each socket
/// lets in the roles that speak its protocol (``ZAP/Domain``).
public enum ClientRole: String, Sendable, Hashable, CaseIterable, Codable {
    /// Renders pictures: the worker protocol only.
    case worker
    /// workctl: the control protocol and the event stream.
    case `operator`
    /// The HTTP gateway: the control protocol and the event stream, narrowed by the coordinator
    /// to what the app's endpoints need, each request naming its owner (`ControlPolicy`).
    case gateway
}
