import Foundation
import NIOPosix
import Synchronization

/// Runs blocking work (a file read, a parse, stopping threads and joining them) off Swift's
/// cooperative pool, on one of NIO's thread pools, with a bound on the work running or waiting:
/// the one way WorkFeed leaves the pool from async code.
///
/// The cooperative pool has as many threads as cores (two here); a blocking call there holds up
/// every task of the process. NIO's `NIOThreadPool` is the ecosystem's piece for this; what it
/// lacks is a bound (its queue grows without one), so ``run(_:)`` admits at most ``limit`` pieces
/// of work at once and refuses the next with ``BlockingWorkError`` at once, before anything is
/// queued.
///
/// ```swift
/// let parsing = BlockingWork(label: "uploads", threads: 2, limit: 8)
/// let workouts = try await parsing.run { try WorkoutFileReader.read(bytes: bytes, file: name) }
/// ```
///
/// Work that has started is not interrupted by task cancellation: a blocking call cannot be, and
/// a daemon's `stop()` must run to its end.
public final class BlockingWork: Sendable {
    /// What this work is, for messages.
    public let label: String
    /// The most pieces of work running or waiting at once.
    public let limit: Int
    private let pool: NIOThreadPool
    private let ownsPool: Bool
    private let admitted = Atomic<Int>(0)

    /// Work on a pool of its own, started here; ``shutdown()`` stops it.
    /// - Parameters:
    ///   - threads: the pool's threads: how many pieces run at once.
    ///   - limit: how many may run or wait at once; the next is refused.
    public init(label: String, threads: Int, limit: Int) {
        self.label = label
        self.limit = max(1, limit)
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        ownsPool = true
    }

    /// Work on NIO's shared blocking pool (`NIOThreadPool.singleton`, one thread a core), which
    /// is never stopped.
    public init(sharedPoolLabel label: String, limit: Int) {
        self.label = label
        self.limit = max(1, limit)
        pool = NIOThreadPool.singleton
        ownsPool = false
    }

    /// For the rare blocking step of starting and stopping a daemon (stopping its threads and
    /// joining them): NIO's shared pool, bounded only against runaway use.
    public static let shared = BlockingWork(sharedPoolLabel: "blocking work", limit: 1_024)

    /// Runs `body` on the pool and returns what it returns.
    /// - Throws: ``BlockingWorkError`` when ``limit`` pieces are already running or waiting (the
    ///   work is not run); whatever `body` throws.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard admitted.add(1, ordering: .relaxed).newValue <= limit else {
            admitted.subtract(1, ordering: .relaxed)
            throw BlockingWorkError(label: label, limit: limit)
        }
        defer { admitted.subtract(1, ordering: .relaxed) }
        let stopped = BlockingWorkError(label: label, limit: limit, stopped: true)
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.submit { state in
                guard case .active = state else {
                    continuation.resume(returning: .failure(stopped))
                    return
                }
                continuation.resume(returning: Result { try body() })
            }
        }
        return try result.get()
    }

    /// Runs `body`, which cannot fail, on the pool; used where there is no one to tell (a
    /// daemon's stop). When the pool refuses it (past the bound, or stopped), it runs on a thread
    /// of its own instead, so that it always runs.
    public func runToEnd(_ body: @escaping @Sendable () -> Void) async {
        do {
            try await run { () throws -> Void in body() }
        } catch {
            await withCheckedContinuation { continuation in
                // The refusal came before `body` ran: run it once, here.
                Thread.detachNewThread {
                    body()
                    continuation.resume()
                }
            }
        }
    }

    /// Stops a pool of its own once its work is done; the shared pool is left alone.
    public func shutdown() async {
        guard ownsPool else { return }
        try? await pool.shutdownGracefully()
    }

    /// The work running or waiting now.
    public var inUse: Int { admitted.load(ordering: .relaxed) }
}

/// Blocking work was refused: ``BlockingWork/limit`` pieces were running or waiting (try again
/// shortly), or the pool has stopped.
public struct BlockingWorkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var label: String
    public var limit: Int
    public var stopped = false

    public init(label: String, limit: Int, stopped: Bool = false) {
        self.label = label
        self.limit = limit
        self.stopped = stopped
    }

    public var description: String {
        stopped ? "\(label): the thread pool has stopped" : "\(label): \(limit) already running or waiting, at most \(limit): try again shortly"
    }
}
