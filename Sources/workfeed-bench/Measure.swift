import Foundation

/// Timing and memory helpers for the bench.
enum Measure {
    /// Runs `body` `warmUp` times untimed, then `runs` times, and returns each run's duration.
    static func durations(runs: Int, warmUp: Int = 3, _ body: () throws -> Void) rethrows -> [Duration] {
        for _ in 0..<warmUp { try body() }
        let clock = ContinuousClock()
        var result: [Duration] = []
        result.reserveCapacity(runs)
        for _ in 0..<runs {
            let started = clock.now
            try body()
            result.append(clock.now - started)
        }
        return result
    }

    /// CPU time of the calling thread, which stays honest when other processes share the cores.
    static func threadCPUTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    /// Like ``durations(runs:warmUp:_:)``, with each run's wall-clock and thread CPU time.
    static func wallAndCPU(runs: Int, warmUp: Int = 3, _ body: () throws -> Void) rethrows -> (wall: [Duration], cpu: [Duration]) {
        for _ in 0..<warmUp { try body() }
        let clock = ContinuousClock()
        var wall: [Duration] = []
        var cpu: [Duration] = []
        for _ in 0..<runs {
            let started = clock.now
            let startedCPU = threadCPUTime()
            try body()
            cpu.append(threadCPUTime() - startedCPU)
            wall.append(clock.now - started)
        }
        return (wall, cpu)
    }

    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[sorted.count / 2]
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// Resident set size of this process now (VmRSS), in MiB; nil off Linux.
    static func residentMiB() -> Double? { status("VmRSS:") }

    /// Peak resident set size of this process so far (VmHWM), in MiB; nil off Linux.
    static func peakResidentMiB() -> Double? { status("VmHWM:") }

    /// A `/proc/self/status` figure in KiB, as MiB.
    private static func status(_ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            let digits = line.split(separator: " ").compactMap { Double($0) }
            if let kib = digits.first { return kib / 1024 }
        }
        return nil
    }

    static func format(_ value: Double, _ decimals: Int = 2) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
