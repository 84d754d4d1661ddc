import Foundation
import Synchronization
import WorkFeedModel
import WorkFeedWire

/// A worker that renders nothing: on its own thread, a DEALER that says READY with `capacity` and
/// answers every JOB with STATUS generated and the job's cache key, at once or after
/// `renderMicroseconds` each (one job after the other, as a worker of one render thread would).
/// It sends HEARTBEAT when it has said nothing for a while, so that it outlives a long import.
final class FakeWorker: Sendable {
    let name: String
    let capacity: Int
    let endpoint: String
    let context: ZMQContext
    let renderMicroseconds: Int
    let answered = Atomic<Int>(0)
    /// Times it woke and found JOBs waiting.
    let batches = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let cpu = Mutex<Duration>(.zero)
    private let done = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    init(name: String, capacity: Int, endpoint: String, context: ZMQContext, renderMicroseconds: Int = 0) {
        self.renderMicroseconds = renderMicroseconds
        self.name = name
        self.capacity = capacity
        self.endpoint = endpoint
        self.context = context
    }

    /// `count` fake workers named fake-0, fake-1, …, started; stop each when done.
    static func started(
        _ count: Int, capacity: Int, endpoint: String, context: ZMQContext, renderMicroseconds: Int = 0
    ) -> [FakeWorker] {
        let fakes = (0..<count).map {
            FakeWorker(name: "fake-\($0)", capacity: capacity, endpoint: endpoint, context: context, renderMicroseconds: renderMicroseconds)
        }
        for fake in fakes { fake.start() }
        return fakes
    }

    func start() {
        started.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            defer { done.signal() }
            do {
                try loop()
            } catch {
                print("fake worker \(name): \(error)")
            }
        }
        thread.name = name
        thread.start()
    }

    /// Says DISCONNECT and ends the thread; returns once it has.
    func stop() {
        guard started.load(ordering: .relaxed), !stopping.exchange(true, ordering: .relaxed) else { return }
        done.wait()
    }

    func cpuSeconds() -> Double { Measure.milliseconds(cpu.withLock { $0 }) / 1000 }

    private func loop() throws {
        let cpuStarted = Measure.threadCPUTime()
        defer {
            let used = Measure.threadCPUTime() - cpuStarted
            cpu.withLock { $0 = used }
        }
        let socket = try ZMQSocket(context, type: .dealer)
        try socket.connect(endpoint)
        try socket.send(WorkerMessage.ready(capacity: capacity, rendererVersion: BuildInfo.rendererVersion, name: name, basemap: "").frames)
        var lastSent = ContinuousClock.now
        while !stopping.load(ordering: .relaxed) {
            guard try ZMQPoll.poll([socket.pollItem()], timeoutMilliseconds: 100)[0] else {
                if ContinuousClock.now - lastSent > .milliseconds(500) {
                    try socket.send(WorkerMessage.heartbeat.frames)
                    lastSent = .now
                }
                continue
            }
            var sawJob = false
            while let frames = try socket.receive(dontWait: true) {
                guard case .job(let job) = try WorkerMessage(frames: frames) else { continue }
                sawJob = true
                if renderMicroseconds > 0 { usleep(UInt32(renderMicroseconds)) }
                try socket.send(
                    WorkerMessage.status(JobReport(lease: job.lease, outcome: .generated, detail: job.cacheKey, renderMicroseconds: 0)).frames)
                answered.add(1, ordering: .relaxed)
            }
            if sawJob {
                batches.add(1, ordering: .relaxed)
                lastSent = .now
            }
        }
        try socket.send(WorkerMessage.disconnect(reason: "bench over").frames)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
