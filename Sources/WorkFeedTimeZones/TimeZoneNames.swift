import Foundation

/// The zone ids the system's tz database knows: every zone and every link (an alias such as
/// `Asia/Calcutta` for `Asia/Kolkata`, `Etc/UTC`, `US/Eastern`), as tzdata itself lists them.
///
/// The list is read from `tzdata.zi`, the text form of the whole database that tzdata installs
/// beside the compiled zones (`/usr/share/zoneinfo/tzdata.zi` on Debian, Alpine and Fedora; `$TZDIR`
/// first when set): its `Z NAME …` lines are zones and its `L TARGET NAME` lines links. Foundation's
/// `TimeZone.knownTimeZoneIdentifiers` is not that list: on Linux it is ICU's canonical ids, which
/// leave out 155 of the 598 names of tzdata 2025b (`Asia/Kolkata` and `Etc/UTC` among them, while
/// ICU's older `Asia/Calcutta` is there), though `TimeZone(identifier:)` opens every one of them.
///
/// ```swift
/// TimeZoneNames.system.contains("Asia/Kolkata")   // true
/// ```
public enum TimeZoneNames {
    /// The names of the system's tz database, read once: those of ``file`` when it can be read, else
    /// the empty set (the caller then has only Foundation's list).
    public static let system: Set<String> = {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return names(inTzdataZi: text)
    }()

    /// The `tzdata.zi` read: under `$TZDIR` when it is set, else `/usr/share/zoneinfo`; `nil` when
    /// neither has one.
    public static var file: String? {
        let directories = [ProcessInfo.processInfo.environment["TZDIR"], "/usr/share/zoneinfo"].compactMap { $0 }.filter { !$0.isEmpty }
        return directories.map { $0 + "/tzdata.zi" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The zone and link names in the text of a `tzdata.zi` (zic's input format, zic(8)): the second
    /// field of each `Z` (zone) line and the third of each `L` (link) line. Names that are not of a
    /// zone id's form (``TimeZoneMap/isZoneIdentifier(_:)``) are left out, so that nothing in a
    /// damaged file becomes a name; other lines (rules, continuations, comments) say nothing of names.
    public static func names(inTzdataZi text: String) -> Set<String> {
        var names: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let name: Substring? =
                switch fields.first {
                case "Z": fields.count > 1 ? fields[1] : nil
                case "L": fields.count > 2 ? fields[2] : nil
                default: nil
                }
            if let name, TimeZoneMap.isZoneIdentifier(String(name)) { names.insert(String(name)) }
        }
        return names
    }
}
