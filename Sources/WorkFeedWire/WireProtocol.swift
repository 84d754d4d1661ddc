/// The two protocols the coordinator speaks, one per endpoint, told apart by frame 0 of every
/// message: a client at the wrong endpoint gets an answer in the other protocol, and says which
/// endpoint it should have used instead of only that frame 0 was wrong.
public enum WireProtocol: String, Sendable, CaseIterable {
    /// Workers (``WorkerMessage``), on `listen.workers`.
    case worker = "WFW1"
    /// workctl, the gateway and other control clients (``ControlRequest``), on `listen.control`.
    case control = "WFC1"

    /// The protocol whose name `frame` is, if any.
    public init?(frame: [UInt8]) {
        guard let text = String(validating: frame, as: UTF8.self), let known = WireProtocol(rawValue: text) else { return nil }
        self = known
    }

    /// The coordinator's configuration key of the endpoint that speaks it.
    public var listenKey: String {
        switch self {
        case .worker: "listen.workers"
        case .control: "listen.control"
        }
    }

    /// The endpoint's port in the embedded defaults.
    public var defaultPort: Int {
        switch self {
        case .worker: 5555
        case .control: 5556
        }
    }

    /// Who connects there.
    public var clients: String {
        switch self {
        case .worker: "workfeed-worker"
        case .control: "workctl and the gateway"
        }
    }

    /// "tcp://host:5555 is the coordinator's worker endpoint (listen.workers, for workfeed-worker),
    /// not its control endpoint (listen.control, port 5556 by default)".
    /// - Parameters:
    ///   - endpoint: the address the client connected to.
    ///   - reached: the protocol that answered there.
    public func wrongEndpoint(_ endpoint: String, reached: WireProtocol) -> String {
        "\(endpoint) is the coordinator's \(reached == .worker ? "worker" : "control") endpoint (\(reached.listenKey), for \(reached.clients)), "
            + "not its \(self == .worker ? "worker" : "control") endpoint (\(listenKey), port \(defaultPort) by default)"
    }
}
