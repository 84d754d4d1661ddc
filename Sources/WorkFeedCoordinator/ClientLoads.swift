/// What each control client has in flight: requests received and not yet answered, and their
/// bytes. The loop admits a request only within the client's bounds and refuses the rest at once
/// with "busy", so that one client's flood costs it its own requests, not everyone's service.
struct ClientLoads {
    struct Load {
        var requests = 0
        var bytes = 0
    }

    private(set) var loads: [[UInt8]: Load] = [:]
    let maximumRequests: Int
    let maximumBytes: Int

    init(maximumRequests: Int, maximumBytes: Int) {
        self.maximumRequests = maximumRequests
        self.maximumBytes = maximumBytes
    }

    /// Admits a request of `bytes` from `identity`, or says why not. A client with nothing in
    /// flight is always admitted (one request of the largest size must get through).
    mutating func admit(_ identity: [UInt8], bytes: Int) -> String? {
        let load = loads[identity] ?? Load()
        if load.requests >= maximumRequests {
            return "busy: \(load.requests) requests of this client in flight, at most \(maximumRequests): wait for replies before sending more"
        }
        if load.requests > 0 && load.bytes + bytes > maximumBytes {
            return
                "busy: \(load.bytes >> 20) MiB of this client's requests in flight, at most \(maximumBytes >> 20) MiB: wait for replies before sending more"
        }
        loads[identity] = Load(requests: load.requests + 1, bytes: load.bytes + bytes)
        return nil
    }

    /// A request of `bytes` from `identity` was answered.
    mutating func answered(_ identity: [UInt8], bytes: Int) {
        guard var load = loads[identity] else { return }
        load.requests -= 1
        load.bytes -= bytes
        loads[identity] = load.requests <= 0 ? nil : load
    }

    /// Whether `identity` has requests in flight.
    func hasInFlight(_ identity: [UInt8]) -> Bool { loads[identity] != nil }

    /// Clients with requests in flight.
    var clientCount: Int { loads.count }

    /// Requests in flight over every client.
    var total: Int { loads.values.reduce(0) { $0 + $1.requests } }
}
