public import Foundation

extension TimeZoneMap {
    /// The boundary file's name, as SwiftPM copies it beside the executables
    /// (`WorkFeed_WorkFeedTimeZones.resources/Data/timezones.wftz`, with `ORIGIN.md`) and as installs place it
    /// (`share/workfeed/timezones.wftz`).
    public static let fileName = "timezones.wftz"
    /// The environment variable that names the file explicitly.
    public static let environmentVariable = "WORKFEED_TIMEZONES"

    /// The shipped boundary file, read and checked once per process on first use; the error says
    /// which places were tried when none holds a readable file.
    public static let shipped: Result<TimeZoneMap, TimeZoneMapError> = {
        var tried: [String] = []
        for url in candidateFiles() {
            tried.append(url.path)
            guard FileManager.default.isReadableFile(atPath: url.path) else { continue }
            return Result { () throws(TimeZoneMapError) in try TimeZoneMap(contentsOf: url) }
        }
        return .failure(TimeZoneMapError(.unreadable, offset: nil, "no \(fileName) found (tried \(tried.joined(separator: ", ")))"))
    }()

    /// Reads and checks a boundary file.
    /// - Throws: ``TimeZoneMapError``: `unreadable` when the file cannot be read, else as ``init(bytes:)``,
    ///   with the file's path in front of the message.
    public init(contentsOf url: URL) throws(TimeZoneMapError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw TimeZoneMapError(.unreadable, offset: nil, "\(url.path): \(error.localizedDescription)")
        }
        do { try self.init(bytes: [UInt8](data)) } catch {
            throw TimeZoneMapError(error.code, offset: error.offset, "\(url.path): \(error.message)")
        }
    }

    /// Where the file is looked for, in order: `$WORKFEED_TIMEZONES`; the resource bundle beside
    /// the executable (SwiftPM builds, tests); `../share/workfeed/` from the executable's folder and
    /// `/usr/local/share/workfeed/`, `/usr/share/workfeed/` (installs, the container).
    public static func candidateFiles() -> [URL] {
        var urls: [URL] = []
        if let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty {
            urls.append(URL(fileURLWithPath: path))
        }
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let folder = executable.deletingLastPathComponent()
            urls.append(folder.appendingPathComponent("WorkFeed_WorkFeedTimeZones.resources/Data").appendingPathComponent(fileName))
            urls.append(folder.deletingLastPathComponent().appendingPathComponent("share/workfeed").appendingPathComponent(fileName))
        }
        urls.append(URL(fileURLWithPath: "/usr/local/share/workfeed").appendingPathComponent(fileName))
        urls.append(URL(fileURLWithPath: "/usr/share/workfeed").appendingPathComponent(fileName))
        return urls
    }
}
