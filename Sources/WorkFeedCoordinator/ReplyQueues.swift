import WorkFeedMetrics
import WorkFeedWire

/// Control replies on their way to clients, bounded over every client (issue 23, finding 7).
///
/// The control socket holds at most ``socketReplies`` replies for one client (its send high-water
/// mark, plus the one libzmq's I/O thread is writing): a client that does not read its replies
/// cannot make libzmq queue without end. A reply that does not fit in the socket waits here, in
/// its client's order, and goes on a later turn of the loop, once the client has read what was
/// before it (``flush(_:)``).
///
/// What waits here, and what the socket holds for clients that have stopped reading (the last
/// ``socketReplies`` replies it took for them), count against one budget over all clients
/// (`control.max_queued_replies_mb`); a client's first waiting reply is kept past it, so that a
/// client that reads never loses a reply to others' flood. A reply that would go past it is dropped and counted, as is
/// one beyond a client's own bound (twice `control.max_in_flight`) or to a client that is gone; its
/// client learns of it by its own timeout, as before. The client that floods loses its replies;
/// the coordinator's memory and everyone else's replies are not touched.
struct ReplyQueues {
    /// Why a reply was dropped; the label of `workfeed_control_replies_dropped_total`.
    typealias Drop = CoordinatorMetrics.ReplyDrop

    enum Outcome: Equatable {
        /// Handed to the socket.
        case sent
        /// Waiting here for its client to read.
        case waiting
        case dropped(Drop)
    }

    private struct Client {
        /// Replies not yet handed to the socket, oldest first, with their sizes.
        var waiting: [(frames: [[UInt8]], bytes: Int)] = []
        /// The sizes of the last replies the socket took, newest last: what it holds for a client
        /// that is not reading.
        var inSocket: [Int] = []
        /// The socket refused this client's last reply (EAGAIN): it is not reading, and what the
        /// socket holds for it counts in ``ReplyQueues/bytes``.
        var blocked = false
        var socketBytes: Int { inSocket.reduce(0, +) }
    }

    /// Replies the control socket holds for one client before refusing more: its send high-water
    /// mark (ZMQ_SNDHWM) and the one being written.
    static let socketHighWaterMark: Int32 = 1
    static let socketReplies = Int(socketHighWaterMark) + 1

    let maximumBytes: Int
    let maximumPerClient: Int
    /// Clients with replies waiting, or blocked, or with replies lately handed to the socket.
    private var clients: [[UInt8]: Client] = [:]
    /// Of these, those with replies waiting, and those with replies waiting or blocked: a turn
    /// looks at them alone, not at every client remembered.
    private var withWaiting: Set<[UInt8]> = []
    private var stalled: Set<[UInt8]> = []
    /// Bytes waiting here plus those held in the socket for blocked clients.
    private(set) var bytes = 0
    /// Replies dropped since ``takeDropped()`` was last asked, by why.
    private var dropped: [Drop: Int] = [:]

    init(maximumBytes: Int, maximumPerClient: Int) {
        self.maximumBytes = maximumBytes
        self.maximumPerClient = maximumPerClient
    }

    /// The replies dropped since the last call, by why (for the metrics and the log).
    mutating func takeDropped() -> [Drop: Int] {
        defer { dropped = [:] }
        return dropped
    }

    /// Whether any reply waits to be sent (the loop then turns again soon to send it).
    var hasWaiting: Bool { !withWaiting.isEmpty }

    /// Clients with replies waiting here or held in a socket they do not read, besides those
    /// `counted` already (the clients with requests in flight).
    func stalledClients(besides counted: (([UInt8]) -> Bool)) -> Int {
        stalled.reduce(0) { $0 + (counted($1) ? 0 : 1) }
    }

    /// Whether `identity` has replies waiting or is not reading: such a client counts against
    /// `control.max_clients` even with no request in flight.
    func isStalled(_ identity: [UInt8]) -> Bool { stalled.contains(identity) }

    /// Sends `frames` to `identity` now if the socket takes it and nothing of the client's waits
    /// before it; otherwise keeps it waiting, within the bounds, or drops it.
    mutating func send(_ frames: [[UInt8]], to identity: [UInt8], via socket: borrowing ZMQSocket) -> Outcome {
        let size = frames.reduce(0) { $0 + $1.count }
        var client = clients.removeValue(forKey: identity) ?? Client()
        defer { keep(client, for: identity) }
        if client.waiting.isEmpty {
            switch hand(frames, size: size, to: identity, client: &client, via: socket) {
            case .sent: return .sent
            case .dropped(let why): return drop(why)
            case .waiting: break
            }
        }
        guard client.waiting.count < maximumPerClient else { return drop(.client) }
        // A client's first waiting reply is kept even past the budget: a client that reads may
        // find the socket full for a moment (the one before still on its way out), and must not
        // lose its reply because others have filled the budget. One a client, at most
        // `control.max_clients` of them.
        guard client.waiting.isEmpty || bytes + size <= maximumBytes else { return drop(.budget) }
        client.waiting.append((frames, size))
        bytes += size
        return .waiting
    }

    /// Sends what waits, each client's in order, as far as the socket takes it.
    /// - Returns: how many replies went.
    @discardableResult
    mutating func flush(_ socket: borrowing ZMQSocket) -> Int {
        var sent = 0
        for identity in withWaiting {
            guard var client = clients.removeValue(forKey: identity) else { continue }
            while let next = client.waiting.first {
                let outcome = hand(next.frames, size: next.bytes, to: identity, client: &client, via: socket)
                if outcome == .waiting { break }
                client.waiting.removeFirst()
                bytes -= next.bytes
                if outcome == .sent {
                    sent += 1
                } else if case .dropped(let why) = outcome {
                    _ = drop(why)
                    if why == .gone {
                        bytes -= client.waiting.reduce(0) { $0 + $1.bytes }
                        dropped[.gone, default: 0] += client.waiting.count
                        client.waiting = []
                    }
                }
            }
            keep(client, for: identity)
        }
        return sent
    }

    /// One attempt to hand a reply to the socket, keeping what the socket holds for the client.
    private mutating func hand(
        _ frames: [[UInt8]], size: Int, to identity: [UInt8], client: inout Client, via socket: borrowing ZMQSocket
    ) -> Outcome {
        do {
            try socket.send(frames, to: identity, dontWait: true)
        } catch  where error.isWouldBlock {
            if !client.blocked {
                client.blocked = true
                bytes += client.socketBytes
            }
            return .waiting
        } catch {
            if client.blocked { bytes -= client.socketBytes }
            client.blocked = false
            client.inSocket = []
            return .dropped(.gone)
        }
        if client.blocked {
            // It read something: what the socket holds is on its way out again.
            client.blocked = false
            bytes -= client.socketBytes
        }
        client.inSocket.append(size)
        if client.inSocket.count > Self.socketReplies { client.inSocket.removeFirst() }
        return .sent
    }

    private mutating func drop(_ why: Drop) -> Outcome {
        dropped[why, default: 0] += 1
        return .dropped(why)
    }

    /// Keeps a client while it matters: replies waiting, blocked, or replies lately sent (whose
    /// sizes count if it turns out not to read them). Forgets the rest, so that the table does
    /// not grow with every client there ever was.
    private mutating func keep(_ client: Client, for identity: [UInt8]) {
        if !client.blocked, client.waiting.isEmpty, clients.count >= Self.rememberedClients,
            let reading = clients.first(where: { !$0.value.blocked && $0.value.waiting.isEmpty })?.key
        {
            // Full: a client that reads makes room (its replies are on their way).
            clients[reading] = nil
            stalled.remove(reading)
            withWaiting.remove(reading)
        }
        clients[identity] = client
        if client.waiting.isEmpty { withWaiting.remove(identity) } else { withWaiting.insert(identity) }
        if client.blocked || !client.waiting.isEmpty { stalled.insert(identity) } else { stalled.remove(identity) }
    }

    /// How many clients' last replies are remembered (beyond the stalled ones, which always are).
    static let rememberedClients = 4_096
}
