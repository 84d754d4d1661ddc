import Foundation
import Logging
import Synchronization
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// Answers the control requests that only read (``ControlReads``: FEED, SHOW, CHANGES) on a
/// thread and a read-only connection of their own, so that a gateway's feed pages never wait
/// behind dispatch and never hold it up (DESIGN.md: "reads for clients must never hold up
/// dispatch"). WAL lets the connection read beside the index thread's writes; it sees what was
/// committed, so a reply never reports something that might roll back, and a client that was
/// answered a write sees it in its next read.
///
/// The loop thread hands requests over in memory; replies come back the same way, with a byte on
/// an inproc PAIR to wake the loop's poll (as the index thread's outboxes do).
final class ReadService: Sendable {
    typealias Reply = (identity: [UInt8], reply: ControlReply)

    private let requests = Handoff<[(identity: [UInt8], request: ControlRequest)]?>()
    private let replies = Mutex<[Reply]>([])
    private let finished = DispatchSemaphore(value: 0)
    let threads: Int

    /// Opens the read connections and starts the threads; returns once they are open.
    /// - Parameter threads: read threads, each with its connection, taking batches in turn.
    /// - Throws: ``IndexError`` when the index cannot be opened for reading, ``ZMQError`` when the
    ///   wake socket cannot connect.
    init(indexPath: String, reads: ControlReads, context: ZMQContext, wakeEndpoint: String, threads: Int = 2, logger: Logger) throws {
        self.threads = threads
        let opened = Handoff<(any Error)?>()
        for number in 0..<threads {
        let thread = Thread { [self] in
            defer { finished.signal() }
            let index: WorkoutIndex
            do {
                index = try WorkoutIndex(readingFrom: indexPath, logger: logger)
            } catch {
                opened.put(error)
                return
            }
            guard let wake = Self.wakeSocket(context: context, endpoint: wakeEndpoint, opened: opened) else { return }
            opened.put(nil)
            while let batch = requests.take() {
                let answered = Self.answer(batch, reads: reads, index: index, logger: logger)
                replies.withLock { $0 += answered }
                try? wake.send([[1]])
            }
        }
        thread.name = "coordinator-reads-\(number)"
        thread.start()
        }
        var failure: (any Error)?
        for _ in 0..<threads { failure = opened.take() ?? failure }
        if let failure {
            stop()
            throw failure
        }
    }

    /// The PAIR that wakes the loop, or `nil` with the error handed to `opened`.
    private static func wakeSocket(context: ZMQContext, endpoint: String, opened: Handoff<(any Error)?>) -> ZMQSocket? {
        do {
            let socket = try ZMQSocket(context, type: .push)
            try socket.connect(endpoint)
            return socket
        } catch {
            opened.put(error)
            return nil
        }
    }

    /// Answers a batch in one read transaction (one snapshot, one BEGIN and COMMIT for them all).
    private static func answer(
        _ batch: [(identity: [UInt8], request: ControlRequest)], reads: ControlReads, index: WorkoutIndex, logger: Logger
    ) -> [Reply] {
        do {
            return try index.read { reader in
                let anchor = try reader.currentAnchor()
                return batch.map { identity, request in
                    do {
                        return (identity, ControlReply(id: request.id, ok: true, body: try reads.answer(request, reader: reader, anchor: anchor)))
                    } catch let refusal as ControlRequestError {
                        return (identity, .error(id: request.id, refusal.description))
                    } catch {
                        logger.error("control request failed", metadata: ["command": "\(request.command.rawValue)", "error": "\(error)"])
                        return (identity, .error(id: request.id, "\(request.command.rawValue) failed: \(error)"))
                    }
                }
            }
        } catch {
            logger.error("control reads failed", metadata: ["error": "\(error)"])
            return batch.map { ($0.identity, .error(id: $0.request.id, "\($0.request.command.rawValue) failed: \(error)")) }
        }
    }

    /// Hands read requests to the thread.
    func submit(_ batch: [(identity: [UInt8], request: ControlRequest)]) {
        guard !batch.isEmpty else { return }
        requests.put(batch)
    }

    /// The replies ready to send.
    func takeReplies() -> [Reply] {
        replies.withLock { replies in
            defer { replies.removeAll() }
            return replies
        }
    }

    /// Answers what was handed over, then ends the threads (which close their sockets).
    func stop() {
        for _ in 0..<threads { requests.put(nil) }
        for _ in 0..<threads { finished.wait() }
    }
}
