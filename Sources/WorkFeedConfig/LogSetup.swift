import Foundation
import Logging

/// Process-wide logging: swift-log, to standard error, as text lines or JSON objects.
public enum LogSetup {
    /// Bootstraps swift-log once per process. Call it from `main` before making any logger.
    public static func bootstrap(level: String, format: String) {
        let logLevel = Logger.Level(rawValue: level) ?? .info
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                format == LogFormat.json.rawValue ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
    }
}

/// One JSON object per line on standard error, for log shippers:
/// `{"ts":"…","level":"info","label":"…","msg":"…","key":"value",…}`.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Where each line goes: standard error, but for tests.
    var output: @Sendable ([UInt8]) -> Void = { FileHandle.standardError.write(Data($0)) }

    init(label: String) { self.label = label }

    init(label: String, output: @escaping @Sendable ([UInt8]) -> Void) {
        self.label = label
        self.output = output
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = "\(value)"
        }
        fields["ts"] = Date().formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true))
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["msg"] = "\(event.message)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(0x0A)
        output(Array(line))
    }
}
