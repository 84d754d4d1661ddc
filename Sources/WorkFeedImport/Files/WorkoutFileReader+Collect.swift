public import Foundation
public import WorkFeedModel

extension WorkoutFileReader {
    /// File extensions picked up inside folders. A file named explicitly is always read.
    static let collectedExtensions: Set<String> = ["gpx", "tcx", "fit", "zip"]

    /// Expands files and folders into the files to read: folders recursively, each folder's
    /// files sorted by path, hidden files and folders and `__MACOSX` (zip debris) skipped, and
    /// inside folders only `.gpx`, `.tcx`, `.fit` and `.zip` files, and `.xml` files that are
    /// Apple Health exports whatever their name (`export 2.xml`). A folder holding an Apple
    /// Health `export.xml` gives that file alone: its `workout-routes` are read through it, not
    /// as workouts of their own. Paths named explicitly come in the order given, each once.
    /// - Throws: ``ImportError`` naming a path that does not exist or a folder that cannot be listed.
    public static func collectFiles(_ paths: [String]) throws(ImportError) -> [URL] {
        try collect(paths).files
    }

    /// What ``collect(_:)`` found: the files to read, and the files inside folders that were
    /// passed over because they are not workout files (a `.txt`, a `.png`), so that a caller can
    /// say so instead of reporting an empty import as a success.
    public struct Collected: Sendable {
        public var files: [URL] = []
        /// Files found in folders and not read, in the order found (hidden files are not counted).
        public var ignored: [URL] = []
    }

    /// ``collectFiles(_:)``, with the files passed over.
    public static func collect(_ paths: [String]) throws(ImportError) -> Collected {
        var collected = Collected()
        var files: [URL] = []
        var seen = Set<String>()
        var visitedFolders = Set<String>()
        for path in paths {
            let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath).standardizedFileURL
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw ImportError(file: path, message: "no such file or folder")
            }
            if isFolder.boolValue {
                try collect(folder: url, into: &files, ignored: &collected.ignored, seen: &seen, visited: &visitedFolders)
            } else if seen.insert(url.path).inserted {
                files.append(url)
            }
        }
        collected.files = files
        return collected
    }

    private static func collect(
        folder: URL, into files: inout [URL], ignored: inout [URL], seen: inout Set<String>, visited: inout Set<String>
    ) throws(ImportError) {
        // Symbolic links are followed, so a loop of them is cut by remembering real paths.
        guard visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw ImportError(file: folder.path, message: "cannot list the folder: \(error.localizedDescription)")
        }
        if names.contains(appleHealthExportName) {
            let export = folder.appendingPathComponent(appleHealthExportName)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: export.path, isDirectory: &isFolder), !isFolder.boolValue {
                if seen.insert(export.path).inserted { files.append(export) }
                return
            }
        }
        for name in names.sorted() where !name.hasPrefix(".") && name != "__MACOSX" {
            let url = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                try collect(folder: url, into: &files, ignored: &ignored, seen: &seen, visited: &visited)
            } else if collectedExtensions.contains(url.pathExtension.lowercased()) || isAppleHealthExport(url) {
                if seen.insert(url.path).inserted { files.append(url) }
            } else {
                ignored.append(url)
            }
        }
    }

    /// Whether `url` is an `.xml` file whose root element is `HealthData`: an Apple Health export
    /// under another name than `export.xml`. Only regular files are opened.
    static func isAppleHealthExport(_ url: URL) -> Bool {
        guard url.pathExtension.lowercased() == "xml", RegularFile.isRegular(url.path),
            let handle = try? RegularFile.open(url.path)
        else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 << 10) else { return false }
        return WorkoutFormat.sniff([UInt8](head)) == .appleHealth
    }
}
