import Foundation
import Logging
import WorkFeedConfig
import WorkFeedMetrics
import WorkFeedModel
import WorkFeedWire

// MARK: Replies, worker messages, heartbeats and authentication on the loop's sockets

extension CoordinatorLoop {
    /// Sends the reply to an admitted request: its client's load goes down.
    mutating func reply(_ reply: ControlReply, to identity: [UInt8], bytes: Int) {
        clients.answered(identity, bytes: bytes)
        send(reply, to: identity)
    }

    /// Sends a control reply without waiting, or leaves it waiting for a client that has not read
    /// the ones before (``ReplyQueues``); past the bounds, it is dropped and counted.
    mutating func send(_ reply: ControlReply, to identity: [UInt8]) {
        _ = replies.send(reply.frames, to: identity, via: controlSocket)
    }

    /// Sends the replies that wait, as far as their clients read, and records what was dropped.
    mutating func flushReplies() {
        replies.flush(controlSocket)
        for (reason, count) in replies.takeDropped() {
            metrics.repliesDropped(count, reason: reason)
            throttle.log(
                "reply-dropped \(reason.rawValue)", "control replies dropped (a client gone, or not reading its replies)",
                metadata: ["reason": "\(reason.rawValue)", "replies": "\(count)", "queued_bytes": "\(replies.bytes)"], logger: logger)
        }
        metrics.controlQueue(replyBytes: replies.bytes, clients: clientCount)
    }

    /// Clients that hold the coordinator's memory: requests in flight, or replies waiting.
    var clientCount: Int { clients.clientCount + replies.stalledClients(besides: clients.hasInFlight) }

    /// Why a request from `identity` is refused because too many clients are already served, or
    /// `nil`: a client with requests in flight or replies waiting is always let in (within its
    /// own bounds); a new one only while fewer than `control.max_clients` are.
    func refusalOfANewClient(_ identity: [UInt8]) -> String? {
        guard !clients.hasInFlight(identity), !replies.isStalled(identity) else { return nil }
        let count = clientCount
        guard count >= maximumClients else { return nil }
        return
            "busy: \(count) control clients have requests in flight or replies waiting, at most \(maximumClients) (control.max_clients): try again later"
    }

    /// Takes up to `limit` messages waiting on a ROUTER socket, without blocking: each split into
    /// the sender's identity and the protocol frames.
    /// - Parameter withRoles: read each message's role (the ZAP user id of its connection).
    static func drain(_ socket: borrowing ZMQSocket, into messages: inout [Batch.Message], upTo limit: Int, withRoles: Bool = false) throws {
        var taken = 0
        while taken < limit,
            let received = try withRoles ? socket.receiveWithUserID(dontWait: true) : socket.receive(dontWait: true).map({ ($0, nil) })
        {
            var frames = received.frames
            guard !frames.isEmpty else { continue }
            let identity = frames.removeFirst()
            messages.append((identity, frames, received.userID.flatMap(ClientRole.init(rawValue:))))
            taken += 1
        }
    }

    /// Until the next tick at the latest; soon while replies wait for their clients to read.
    func pollTimeout() -> Int {
        let untilTick = tickInterval - (ContinuousClock.now - lastTick)
        let until = removedReplies.untilDue().map { min($0, untilTick) } ?? untilTick
        let timeout = max(0, Int(until.components.seconds * 1000 + until.components.attoseconds / 1_000_000_000_000_000))
        return replies.hasWaiting ? min(timeout, Self.replyRetryMilliseconds) : timeout
    }

    /// How soon a reply that waits for its client is tried again.
    static let replyRetryMilliseconds = 2

    mutating func send(_ outbox: Outbox) {
        let now = ContinuousClock.now
        var peers: [[UInt8]: ContinuousClock.Instant] = [:]
        for identity in outbox.workers { peers[identity] = self.peers[identity] ?? now }
        self.peers = peers
        var unsent: [(identity: [UInt8], lease: UInt64)] = []
        for (identity, message) in outbox.worker {
            do {
                try workerSocket.send(message.frames, to: identity, dontWait: true)
                if self.peers[identity] != nil { self.peers[identity] = now }
            } catch {
                // The worker is gone (EHOSTUNREACH) or not reading (EAGAIN): a JOB's lease ends now.
                logger.warning("could not send to worker", metadata: ["worker": "\(identity.hexString)", "error": "\(error)"])
                if case .job(let job) = message { unsent.append((identity, job.lease)) }
            }
        }
        inbox.add(worker: [], control: [], unsent: unsent)
        let timestamp = Date()
        let stamp = CoordinatorEvent.iso8601(timestamp)
        for event in outbox.events {
            do {
                try eventSocket.send(event.frames(at: timestamp, stamped: stamp), dontWait: true)
            } catch {
                logger.debug("event not published", metadata: ["error": "\(error)"])
            }
        }
        for (identity, reply, bytes) in outbox.control {
            // A PROGRESS reply is not the answer: the request stays in flight.
            if reply.isProgress { send(reply, to: identity) } else { self.reply(reply, to: identity, bytes: bytes) }
        }
        // Requests carried out in steps go on in the next batch.
        inbox.add(worker: [], control: outbox.continuing)
        if outbox.isLast { sayGoodbye() }
    }

    mutating func sendHeartbeats(now: ContinuousClock.Instant) {
        for (identity, lastSent) in peers where now - lastSent >= heartbeatInterval {
            do {
                try workerSocket.send(WorkerMessage.heartbeat.frames, to: identity, dontWait: true)
                peers[identity] = now
            } catch {
                logger.debug("heartbeat not sent", metadata: ["worker": "\(identity.hexString)", "error": "\(error)"])
            }
        }
    }

    /// Lets in CURVE clients whose public key has a role the socket takes (workers on the worker
    /// socket, operators and gateways on the control and event sockets); logs every refusal.
    mutating func answerAuthentication() throws {
        while let request = try zapSocket.receive(dontWait: true) {
            let decision = ZAP.decide(request, roles: keyRoles)
            if !decision.allowed {
                // One line a second for each socket and reason, with a count of the rest.
                throttle.log(
                    "refused \(decision.domain?.rawValue ?? "?") \(decision.refusal ?? "")",
                    "connection refused: \(decision.refusal ?? "key not allowed")",
                    metadata: [
                        "key": "\(decision.client.escapedForDisplay)", "address": "\(decision.address.escapedForDisplay)",
                        "socket": "\(decision.domain?.socketName ?? "?")", "role": "\(decision.role?.rawValue ?? "none")",
                    ], logger: logger)
            }
            try zapSocket.send(decision.reply)
        }
    }

    /// Tells every worker the coordinator is going away, so they reconnect instead of waiting out
    /// the heartbeat expiry.
    func sayGoodbye() {
        for identity in peers.keys {
            try? workerSocket.send(WorkerMessage.disconnect(reason: "coordinator stopping").frames, to: identity, dontWait: true)
        }
    }
}
