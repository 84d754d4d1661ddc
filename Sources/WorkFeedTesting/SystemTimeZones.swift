import Foundation

/// Every zone id of this machine's tz database, as a test reads it for itself (not through the
/// code it tests): the zones and links of `/usr/share/zoneinfo/tzdata.zi`, or, where a system has
/// no `tzdata.zi`, the zones of `zone1970.tab` and `zone.tab` with the links of tzdata's `backward`
/// file when it is installed.
public enum SystemTimeZones {
    /// The ids, sorted, and the file(s) they came from (for a test's message).
    /// - Throws: when the system has no tz database a test can read.
    public static func all(directory: String = "/usr/share/zoneinfo") throws -> (names: [String], source: String) {
        let zi = directory + "/tzdata.zi"
        if let text = try? String(contentsOfFile: zi, encoding: .utf8) {
            var names: [String] = []
            for line in text.components(separatedBy: "\n") {
                let fields = line.components(separatedBy: " ")
                if fields.count >= 2, fields[0] == "Z" { names.append(fields[1]) }
                if fields.count >= 3, fields[0] == "L" { names.append(fields[2]) }
            }
            return (Array(Set(names)).sorted(), zi)
        }
        var names: Set<String> = []
        var sources: [String] = []
        for table in ["zone1970.tab", "zone.tab"] {
            guard let text = try? String(contentsOfFile: directory + "/" + table, encoding: .utf8) else { continue }
            sources.append(table)
            for line in text.components(separatedBy: "\n") where !line.hasPrefix("#") {
                let fields = line.components(separatedBy: "\t")
                if fields.count >= 3 { names.insert(fields[2]) }
            }
        }
        if let text = try? String(contentsOfFile: directory + "/backward", encoding: .utf8) {
            sources.append("backward")
            for line in text.components(separatedBy: "\n") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if fields.count >= 3, fields[0] == "Link" { names.insert(String(fields[2])) }
            }
        }
        guard !names.isEmpty else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: zi])
        }
        return (names.sorted(), sources.map { directory + "/" + $0 }.joined(separator: ", "))
    }
}
