public import Logging
import Synchronization

/// Log lines collected by a ``CapturingHandler``.
public final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
}

/// Collects log lines (message and metadata), for tests that check what an operator is told.
public struct CapturingHandler: LogHandler {
    public let lines: LogLines
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]

    public init(lines: LogLines) { self.lines = lines }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        lines.append("\(event.message) \(event.metadata ?? [:])")
    }
}
