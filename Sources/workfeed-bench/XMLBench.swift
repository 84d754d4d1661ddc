import Foundation
import WorkFeedImport
import WorkFeedModel

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The "xml" group: our XML reader against Foundation's `XMLParser` (libxml2's SAX parser on
/// Linux) on the same Apple Health `export.xml`, then what each does with entity-expansion and
/// external-entity documents.
///
/// Ours runs the real import (``AppleHealthReader/readEach(exportAt:_:)``: heart-rate records
/// parsed and kept, workouts built); `XMLParser` does the least that the same result needs: count
/// `Record` and `Workout` elements and read the attributes the import reads. The export is
/// generated without route files (`--xml-mb`), or given (`--xml-file`), so both read the same
/// bytes and nothing else, except that `XMLParser` gets a copy without the DOCTYPE: on Linux it
/// crashes on the DTD's `<!ATTLIST … #REQUIRED>` declarations (swift-corelibs-foundation passes
/// libxml2's null default value to `strlen`), as the entity checks below show. Times are the
/// reading thread's CPU time; the peak resident memory of each is measured from its own start
/// (VmHWM reset between them).
enum XMLBench {
    static func run(options: BenchOptions) throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("workfeed-xml-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let export: URL
        if let file = options.xmlFile {
            export = URL(fileURLWithPath: file)
            print("## xml (\(file); one thread, thread CPU time)")
        } else {
            let folder = root.appendingPathComponent("apple_health_export")
            let generated = try SyntheticFiles.writeAppleHealthExport(megabytes: options.xmlMegabytes, to: folder, routeFiles: false)
            export = folder.appendingPathComponent("export.xml")
            print(
                "## xml (generated export.xml: \(generated.records) records, \(generated.heartRate) of them heart rate, "
                    + "\(generated.workouts) workouts, no route files; one thread, thread CPU time)")
        }
        let withoutDoctype = root.appendingPathComponent("export-without-doctype.xml")
        try copyWithoutDoctype(export, to: withoutDoctype)
        print("reader                 MB      cpu s   wall s  MB/s    peak RSS MiB (start -> peak)  found")
        for parser in options.xmlParsers {
            let file = parser == "own" ? export : withoutDoctype
            let bytes = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            Memory.resetPeak()
            let before = Memory.peakResidentMiB()
            let clock = ContinuousClock()
            let started = clock.now
            let startedCPU = Measure.threadCPUTime()
            let found: String
            switch parser {
            case "own":
                var workouts = 0
                var samples = 0
                let errors = AppleHealthReader.readEach(exportAt: export) { workout in
                    workouts += 1
                    samples += workout.heartRate.count
                }
                found =
                    "\(workouts) workouts, \(samples) heart-rate samples in them, \(errors.count) errors"
                    + (errors.first.map { ": \($0)" } ?? "")
            case "foundation":
                let counter = HealthCounter()
                let ok = counter.parse(withoutDoctype, resolvingExternalEntities: false)
                found =
                    "\(counter.workouts) workouts, \(counter.records) records (\(counter.heartRate) heart rate)"
                    + (ok ? "" : "; failed: \(counter.error ?? "?")")
            default:
                throw BenchUsageError("unknown XML reader \(parser): own or foundation")
            }
            let cpu = Measure.milliseconds(Measure.threadCPUTime() - startedCPU) / 1000
            let wall = Measure.milliseconds(clock.now - started) / 1000
            let peak = Memory.peakResidentMiB()
            print(
                RenderBench.pad(parser == "own" ? "own (AppleHealthReader)" : "XMLParser (libxml2)", 23)
                    + RenderBench.pad(Measure.format(Double(bytes) / 1e6, 1), 8) + RenderBench.pad(Measure.format(cpu), 8)
                    + RenderBench.pad(Measure.format(wall), 8) + RenderBench.pad(Measure.format(Double(bytes) / 1e6 / cpu, 1), 8)
                    + RenderBench.pad("\(before.map { Measure.format($0, 1) } ?? "?") -> \(peak.map { Measure.format($0, 1) } ?? "?")", 30)
                    + found)
        }
        if !Memory.canResetPeak { print("  (VmHWM could not be reset: each peak includes what ran before it)") }
        try entityChecks(in: root)
    }

    /// Copies `source` without its `<!DOCTYPE …>` (looked for in the first MiB), a chunk at a time.
    private static func copyWithoutDoctype(_ source: URL, to destination: URL) throws {
        guard let input = FileHandle(forReadingAtPath: source.path) else { throw BenchUsageError("cannot read \(source.path)") }
        defer { try? input.close() }
        var out = try SyntheticFiles.Writer(destination)
        var head = [UInt8](try input.read(upToCount: 1 << 20) ?? Data())
        if let open = head.firstRange(of: Array("<!DOCTYPE".utf8)), let close = head[open.upperBound...].firstRange(of: Array("]>".utf8)) {
            head.removeSubrange(open.lowerBound..<close.upperBound)
        }
        try out.bytes(head)
        while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty { try out.bytes([UInt8](chunk)) }
        try out.close()
    }

    /// Runs each reader on hostile documents in a child process of this bench, with 2 GiB of
    /// address space and 20 seconds at most, and prints what happened.
    private static func entityChecks(in root: URL) throws {
        let secret = root.appendingPathComponent("secret.txt")
        try Data("SECRET-FILE-CONTENT\n".utf8).write(to: secret)
        let externalDTD = root.appendingPathComponent("external.dtd")
        try Data("<!ENTITY fromdtd \"EXTERNAL-DTD-CONTENT\">\n".utf8).write(to: externalDTD)
        let record =
            "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" "
            + "startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:00:00 +0100\" value=\"60\"/>"
        let laughs = (1...9).map { level in
            "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }.joined(separator: "\n ")
        let documents: [(name: String, text: String)] = [
            (
                "an attribute declared without a default (every Apple Health export's DTD)",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n <!ATTLIST HealthData locale CDATA #REQUIRED>\n]>\n"
                    + "<HealthData locale=\"en_US\">\n \(record)\n</HealthData>\n"
            ),
            (
                "billion laughs (10^9 x \"lol\", 3 GB expanded)",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n <!ENTITY lol0 \"lol\">\n \(laughs)\n]>\n"
                    + "<HealthData locale=\"en_US\">\n \(record)\n <Note>&lol9;</Note>\n</HealthData>\n"
            ),
            (
                "external general entity (file \(secret.path))",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n <!ENTITY xxe SYSTEM \"file://\(secret.path)\">\n]>\n"
                    + "<HealthData locale=\"en_US\">\n \(record)\n <Note>&xxe;</Note>\n</HealthData>\n"
            ),
            (
                "external parameter entity (a DTD file declaring an entity)",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n <!ENTITY % ext SYSTEM \"file://\(externalDTD.path)\">\n %ext;\n]>\n"
                    + "<HealthData locale=\"en_US\">\n \(record)\n <Note>&fromdtd;</Note>\n</HealthData>\n"
            ),
        ]
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        print("")
        print("entity safety (each reader in a child process: ulimit -v 2 GiB, timeout 20 s)")
        for (index, document) in documents.enumerated() {
            let file = root.appendingPathComponent("entities-\(index).xml")
            try Data(document.text.utf8).write(to: file)
            print("  \(document.name):")
            for parser in ["own", "foundation", "foundation-resolving"] {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: "/bin/sh")
                child.arguments = [
                    "-c", "ulimit -v 2097152; exec timeout 20 \"$0\" --parse-xml \"$1\" \"$2\"", executable, parser, file.path,
                ]
                let output = Pipe()
                child.standardOutput = output
                child.standardError = output
                let clock = ContinuousClock()
                let started = clock.now
                try child.run()
                let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.waitUntilExit()
                let seconds = Measure.milliseconds(clock.now - started) / 1000
                // timeout(1) exits with 124 when the time is up, and dies of the signal its child died of.
                let code = child.terminationStatus
                let status =
                    child.terminationReason == .uncaughtSignal
                    ? "died of signal \(code)" : code == 124 ? "timed out" : "exit \(code)"
                let lines = printed.split(separator: "\n").map(String.init)
                let line = lines.first { $0.contains("Program crashed") } ?? lines.last ?? "(nothing printed)"
                print("    \(RenderBench.pad(parser, 21)) \(status), \(Measure.format(seconds, 1)) s: \(line.prefix(300))")
            }
        }
    }

    /// Parses one file with one reader and prints one line: what was found, the text's first
    /// bytes, the error, and the peak resident memory.
    /// - Returns: the exit status: 0 when the reader accepted the file, 1 when it refused it.
    static func parseOne(parser: String, path: String) -> Int32 {
        let url = URL(fileURLWithPath: path)
        let accepted: Bool
        let summary: String
        switch parser {
        case "own":
            var workouts = 0
            let errors = AppleHealthReader.readEach(exportAt: url) { _ in workouts += 1 }
            accepted = errors.isEmpty
            summary = errors.first.map { "refused: \($0)" } ?? "accepted, \(workouts) workouts"
        case "foundation", "foundation-resolving":
            let counter = HealthCounter()
            accepted = counter.parse(url, resolvingExternalEntities: parser == "foundation-resolving")
            let text = counter.text.replacingOccurrences(of: "\n", with: " ")
            summary =
                (accepted ? "accepted" : "failed: \(counter.error ?? "?")") + ", \(counter.records) records, "
                + "\(counter.textBytes) bytes of text" + (text.isEmpty ? "" : " starting \"\(text.prefix(60))\"")
        default:
            print("unknown reader \(parser): own, foundation or foundation-resolving")
            return 64
        }
        print(summary + "; peak RSS \(Measure.peakResidentMiB().map { Measure.format($0, 1) } ?? "?") MiB")
        return accepted ? 0 : 1
    }
}

/// The least an `XMLParser` delegate does to import an Apple Health export: count `Record`s and
/// `Workout`s and read the attributes the import reads (a heart-rate record's value, unit and
/// date; a workout's type, source and dates). Also keeps the first bytes of text, to show what an
/// entity expanded to.
private final class HealthCounter: NSObject, XMLParserDelegate {
    var records = 0
    var heartRate = 0
    var workouts = 0
    var attributeBytes = 0
    var text = ""
    var textBytes = 0
    var error: String?

    func parse(_ url: URL, resolvingExternalEntities: Bool) -> Bool {
        guard let parser = XMLParser(contentsOf: url) else {
            error = "cannot open \(url.path)"
            return false
        }
        parser.delegate = self
        if resolvingExternalEntities {
            parser.shouldResolveExternalEntities = true
            parser.externalEntityResolvingPolicy = .always
        }
        let ok = parser.parse()
        if !ok, error == nil { error = parser.parserError.map { "\($0)" } ?? "parse() returned false" }
        return ok
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String]
    ) {
        switch elementName {
        case "Record":
            records += 1
            guard attributeDict["type"] == "HKQuantityTypeIdentifierHeartRate" else { return }
            heartRate += 1
            for name in ["value", "unit", "startDate"] { attributeBytes += attributeDict[name]?.utf8.count ?? 0 }
        case "Workout":
            workouts += 1
            for name in ["workoutActivityType", "sourceName", "startDate", "endDate"] {
                attributeBytes += attributeDict[name]?.utf8.count ?? 0
            }
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        textBytes += string.utf8.count
        if text.utf8.count < 80 { text += string.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let line = parser.lineNumber
        if error == nil { error = "line \(line): \(parseError)" }
    }
}
