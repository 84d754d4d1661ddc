import Foundation
public import Logging
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// Process-wide logging: swift-log, to standard error, as text lines or JSON objects.
public enum LogSetup {
    /// Bootstraps swift-log once per process. Call it from `main` before making any logger.
    public static func bootstrap(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            var handler = LineLogHandler(label: label, format: format == .json ? .json : .text)
            handler.logLevel = level
            return handler
        }
    }
}

/// One line per event on standard error, in either format. Names and reasons in messages and
/// metadata come from the wire: a worker named `x\ninfo ... worker connected`, or one holding
/// terminal escape sequences, must neither forge a line nor drive the terminal of whoever reads
/// the log, so whatever is not plain text is escaped.
struct LineLogHandler: LogHandler {
    enum Format {
        /// As swift-log's `StreamLogHandler` writes it (`2026-11-24T13:06:01+0000 info
        /// workfeed.coordinator: key=value [Source] message`), with every message, key and value
        /// escaped (``Swift/String/escapedForDisplay``).
        case text
        /// One JSON object, for log shippers: `{"ts":"…","level":"info","label":"…","msg":"…","key":"value",…}`;
        /// control and format characters that JSONEncoder leaves raw are escaped too, without
        /// changing what the line decodes to.
        case json
    }

    let label: String
    let format: Format
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Where each line goes: standard error, but for tests.
    var output: @Sendable ([UInt8]) -> Void = { FileHandle.standardError.write(Data($0)) }

    init(label: String, format: Format) {
        self.label = label
        self.format = format
    }

    init(label: String, format: Format, output: @escaping @Sendable ([UInt8]) -> Void) {
        self.init(label: label, format: format)
        self.output = output
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        switch format {
        case .text:
            let fields = merged.keys.sorted().map { "\($0.escapedForDisplay)=\("\(merged[$0]!)".escapedForDisplay)" }.joined(separator: " ")
            let line =
                "\(Self.localTimestamp()) \(event.level) \(label.escapedForDisplay):\(fields.isEmpty ? "" : " " + fields) "
                + "[\(event.source.escapedForDisplay)] \("\(event.message)".escapedForDisplay)\n"
            output(Array(line.utf8))
        case .json:
            var fields: [String: String] = [:]
            for (key, value) in merged { fields[key] = "\(value)" }
            fields["ts"] = Date().formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true))
            fields["level"] = event.level.rawValue
            fields["label"] = label
            fields["msg"] = "\(event.message)"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let encoded = try? encoder.encode(fields) else { return }
            output(Array((String(decoding: encoded, as: UTF8.self).jsonEscapedForDisplay + "\n").utf8))
        }
    }

    /// Local time as StreamLogHandler writes it: `2026-11-24T13:06:01+0000`.
    static func localTimestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
