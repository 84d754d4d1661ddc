public import Foundation

extension PlaceMap {
    /// The places file's name, as SwiftPM copies it beside the executables
    /// (`WorkFeed_WorkFeedPlaces.resources/Data/places.wfpl`, with `ORIGIN.md`) and as installs place
    /// it (`share/workfeed/places.wfpl`).
    public static let fileName = "places.wfpl"
    /// The environment variable that names the file explicitly.
    public static let environmentVariable = "WORKFEED_PLACES"

    /// The shipped places file, read and checked once per process on first use; the error says
    /// which places were tried when none holds a readable file.
    public static let shipped: Result<PlaceMap, PlaceMapError> = {
        let urls = candidateFiles()
        guard let url = urls.first(where: { FileManager.default.isReadableFile(atPath: $0.path) }) else {
            return .failure(PlaceMapError(.unreadable, offset: nil, "no \(fileName) found (tried \(urls.map(\.path).joined(separator: ", ")))"))
        }
        return Result { () throws(PlaceMapError) in try PlaceMap(contentsOf: url) }
    }()

    /// Reads and checks a places file.
    /// - Throws: ``PlaceMapError``: `unreadable` when the file cannot be read, else as ``init(bytes:)``,
    ///   with the file's path in front of the message.
    public init(contentsOf url: URL) throws(PlaceMapError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw PlaceMapError(.unreadable, offset: nil, "\(url.path): \(error.localizedDescription)")
        }
        do { try self.init(bytes: [UInt8](data)) } catch {
            throw PlaceMapError(error.code, offset: error.offset, "\(url.path): \(error.message)")
        }
    }

    /// Where the file is looked for, in order: `$WORKFEED_PLACES`; the resource bundle beside the
    /// executable (SwiftPM builds, tests); `../share/workfeed/` from the executable's folder, then
    /// `/usr/local/share/workfeed/` and `/usr/share/workfeed/` (installs, the container).
    public static func candidateFiles() -> [URL] {
        let environment = ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
        let folder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        let beside =
            folder.map {
                [
                    $0.appendingPathComponent("WorkFeed_WorkFeedPlaces.resources/Data/\(fileName)"),
                    $0.deletingLastPathComponent().appendingPathComponent("share/workfeed/\(fileName)"),
                ]
            } ?? []
        let installed = ["/usr/local/share/workfeed", "/usr/share/workfeed"].map { URL(fileURLWithPath: $0).appendingPathComponent(fileName) }
        return (environment.map { [$0] } ?? []) + beside + installed
    }
}
