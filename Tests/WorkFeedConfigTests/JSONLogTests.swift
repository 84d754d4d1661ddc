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
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
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
        #expect(try Date(stamp, strategy: .iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true)) <= Date())
        // Slashes are not escaped, so paths stay greppable.
        #expect(String(decoding: line, as: UTF8.self).contains("/var/cache/x.png"))
    }
}
