import Foundation
import WorkFeedWire

/// Hands jobs from the socket thread to the render threads. Blocking on purpose: render threads
/// are threads of their own, not tasks on Swift's cooperative pool.
final class JobQueue: @unchecked Sendable {
    // @unchecked: every access to `jobs` and `closed` holds `condition`.
    private let condition = NSCondition()
    private var jobs: [JobAssignment] = []
    private var head = 0
    private var closed = false

    func push(_ job: JobAssignment) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The next job, or `nil` once the queue is closed.
    func pop() -> JobAssignment? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    /// Removes the jobs no render thread has started, and returns their leases.
    func drain() -> [UInt64] {
        condition.lock()
        defer { condition.unlock() }
        let leases = jobs[head...].map(\.lease)
        jobs.removeAll()
        head = 0
        return leases
    }

    /// Wakes every render thread; `pop` returns what is left, then `nil`.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
