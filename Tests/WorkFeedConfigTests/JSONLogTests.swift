import Foundation
import Logging
import Synchronization
import Testing
@testable import WorkFeedConfig

/// `logging.format: json`: one JSON object a line, for log shippers.
@Suite struct JSONLogTests {
    @Test func eachEventIsOneJSONObjectOnOneLine() throws {
        let lines = Mutex<[[UInt8]]>([])
        var logger = Logger(label: "workfeed.coordinator") { label in
            LineLogHandler(label: label, format: .json) { line in lines.withLock { $0.append(line) } }
        }
        logger.logLevel = .debug
        logger[metadataKey: "host"] = "a"
        logger.warning(
            "worker went silent; its jobs go to others",
            metadata: ["worker": "w \"1\"", "reason": "line\nbreak", "path": "/var/cache/x.png", "host": "b"])
        logger.trace("below the level")

        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false, "one event, one line")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
        #expect(object["level"] == "warning")
        #expect(object["label"] == "workfeed.coordinator")
        #expect(object["msg"] == "worker went silent; its jobs go to others")
        #expect(object["worker"] == "w \"1\"")
        #expect(object["reason"] == "line\nbreak")
        #expect(object["path"] == "/var/cache/x.png")
        // The event's metadata wins over the logger's.
        #expect(object["host"] == "b")
        let stamp = try #require(object["ts"])
        #expect(
            try Date(stamp, strategy: .iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true)) <= Date())
        // Slashes are not escaped, so paths stay greppable.
        #expect(String(decoding: line, as: UTF8.self).contains("/var/cache/x.png"))
    }

    /// Issue 13, finding 6: a worker name with a line break and terminal escapes forged log lines
    /// and reached operators' terminals raw. Text lines escape everything from outside.
    @Test func textLinesEscapeNamesFromTheWire() throws {
        let lines = Mutex<[[UInt8]]>([])
        let logger = Logger(label: "workfeed.coordinator") { label in
            LineLogHandler(label: label, format: .text) { line in lines.withLock { $0.append(line) } }
        }
        let forged = "w1 [WorkFeedCoordinator] fine\n2026-01-01T00:00:00+0000 info workfeed.coordinator: worker=evil \u{1B}[2J\u{9B}31m\u{202E}"
        logger.info("worker connected", metadata: ["worker": "\(forged)"])
        logger.warning("refused \u{1B}]0;pwned\u{07}")
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        for line in written {
            #expect(line.last == 0x0A)
            #expect(!line.dropLast().contains(0x0A) && !line.contains(0x0D), "one event, one line")
            #expect(!line.contains(0x1B) && !line.contains(0x07), "no raw escape or bell")
            let text = String(decoding: line, as: UTF8.self)
            #expect(!text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E })
        }
        let first = String(decoding: written[0], as: UTF8.self)
        #expect(first.contains(#"worker=w1 [WorkFeedCoordinator] fine\n2026-01-01T00:00:00+0000"#), "\(first)")
        #expect(first.contains(#"\u{1B}[2J\u{9B}31m\u{202E}"#), "\(first)")
        #expect(first.hasSuffix("[WorkFeedConfigTests] worker connected\n"), "\(first)")
    }

    @Test func jsonLinesEscapeWhatJSONEncoderLeavesRaw() throws {
        let lines = Mutex<[[UInt8]]>([])
        let logger = Logger(label: "l") { label in LineLogHandler(label: label, format: .json) { line in lines.withLock { $0.append(line) } } }
        logger.info("x", metadata: ["name": "a\u{9B}b\u{202E}c\u{1B}d"])
        let line = try #require(lines.withLock { $0 }.first)
        #expect(!line.contains(0x1B))
        #expect(!String(decoding: line, as: UTF8.self).unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
        #expect(object["name"] == "a\u{9B}b\u{202E}c\u{1B}d", "the same value once decoded")
    }
}
