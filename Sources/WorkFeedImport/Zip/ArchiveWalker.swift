import Foundation
import WorkFeedModel

/// Reads the workouts of a zip archive entry by entry, handing each to `emit`: an entry that
/// fails gives an error naming the archive and the entry, and the others are still read.
struct ArchiveWalker {
    let budget: ArchiveBudget
    let emit: (ImportedWorkout) -> Void
    var errors: [ImportError] = []

    var limits: ArchiveLimits { budget.limits }

    /// Extensions of the entries read; anything else (`export_cda.xml`, ECG `.csv`, notes) is
    /// skipped silently, and so are the route files of an Apple Health export (read through
    /// its `export.xml`).
    static let readExtensions: Set<String> = ["gpx", "tcx", "fit", "zip"]

    init(limits: ArchiveLimits, emit: @escaping (ImportedWorkout) -> Void) {
        budget = ArchiveBudget(limits: limits)
        self.emit = emit
    }

    /// Reads every entry of `archive`. `depth` is 0 for an archive on disk, 1 for a zip inside it.
    mutating func read(_ archive: ZipArchive, depth: Int) {
        let visible = archive.entries.filter { !Self.isSkipped($0) }
        // Apple Health exports inside the archive, by the folder that holds their export.xml.
        let exportFolders = visible.filter(Self.isAppleHealthExport).map {
            String($0.name.dropLast(Self.exportFileName.count))
        }
        for entry in archive.entries where !entry.isFolder && Self.climbsOut(entry) {
            // Nothing is written from an archive, but a name like this is a warning sign, and a
            // skipped entry is said.
            errors.append(
                ImportError(file: archive.displayName(entry), message: "skipped: its path leaves the archive's folder ('..' or a leading '/')"))
        }
        for entry in visible where !Self.climbsOut(entry) {
            if Self.isAppleHealthExport(entry) {
                readAppleHealth(entry, in: archive)
                continue
            }
            if exportFolders.contains(where: { entry.name.hasPrefix($0 + "workout-routes/") }) { continue }
            guard let last = entry.components.last, Self.readExtensions.contains(Self.pathExtension(last)) else { continue }
            do throws(ImportError) {
                // A zip too deep is refused before it is inflated.
                if depth > 0 && Self.pathExtension(last) == "zip" { throw nestedTooDeep(archive.displayName(entry)) }
                try readEntry(entry, in: archive, depth: depth)
            } catch {
                errors.append(error)
            }
        }
    }

    private static let exportFileName = WorkoutFileReader.appleHealthExportName

    /// Folders, `__MACOSX/` resource forks and dot files (`.DS_Store`) are never read.
    static func isSkipped(_ entry: ZipEntry) -> Bool {
        entry.isFolder || entry.components.contains { $0 == "__MACOSX" || $0.hasPrefix(".") }
    }

    /// Whether an entry's path climbs out of the archive (`../x.gpx`) or is absolute (`/x.gpx`,
    /// `C:\\x.gpx`): such an entry is skipped and named.
    static func climbsOut(_ entry: ZipEntry) -> Bool {
        entry.name.hasPrefix("/") || entry.name.hasPrefix("\\") || entry.components.contains("..")
            || entry.name.split(separator: "\\").contains("..") || (entry.name.count > 1 && entry.name.dropFirst().hasPrefix(":"))
    }

    static func isAppleHealthExport(_ entry: ZipEntry) -> Bool {
        entry.components.last.map { $0.lowercased() == exportFileName } ?? false
    }

    static func pathExtension(_ name: Substring) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    static func describe(_ bytes: UInt64) -> String {
        if bytes >= 1 << 30 { return String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) }
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        return "\(bytes) bytes"
    }

    // MARK: - Entries

    /// Reads a GPX, TCX, FIT or zip entry, choosing the reader by the entry's first bytes.
    private mutating func readEntry(_ entry: ZipEntry, in archive: ZipArchive, depth: Int) throws(ImportError) {
        try budget.admit(entry, in: archive)
        let name = archive.displayName(entry)
        let reader = try ZipEntryReader(archive: archive, entry: entry)
        if entry.uncompressedSize <= limits.inMemoryEntrySize {
            let bytes = try reader.readAll()
            guard !bytes.isEmpty else { throw ImportError(file: name, message: "the file is empty") }
            switch try WorkoutFileReader.format(of: bytes, file: name) {
            case .zip:
                try readNested(ZipMemorySource(bytes), name: name, depth: depth)
            case .appleHealth:
                // An export.xml under another name: its routes are looked up beside it.
                let xml = XMLPullReader(bytes: bytes, file: name)
                errors += AppleHealthReader.read(
                    xml, loadRoute: archiveRouteLoader(archive, export: entry),
                    capture: FileCapture(bytes: bytes, keepLimit: Int(limits.inMemoryEntrySize)), emit: emit)
            case let format:
                try WorkoutFileReader.readSingle(bytes, format: format, file: name, keepLimit: limits.inMemoryEntrySize).forEach(emit)
            }
            return
        }
        // Too large for memory: XML is parsed as it inflates, a zip goes to a temporary file.
        let head = try reader.peek(64 << 10)
        switch try WorkoutFileReader.format(of: head, file: name) {
        case .gpx:
            let capture = FileCapture(keepLimit: 0)
            var parser = GPXParser(reader: XMLPullReader(source: CapturingSource(inner: reader, capture: capture), file: name))
            let workout = try parser.parse()
            try reader.drain()
            WorkoutFileReader.describe([workout], file: capture.file(name: name, format: "gpx"), original: nil).forEach(emit)
        case .tcx:
            let capture = FileCapture(keepLimit: 0)
            var parser = TCXParser(reader: XMLPullReader(source: CapturingSource(inner: reader, capture: capture), file: name))
            let workouts = try parser.parse()
            try reader.drain()
            WorkoutFileReader.describe(workouts, file: capture.file(name: name, format: "tcx"), original: nil).forEach(emit)
        case .appleHealth:
            let capture = FileCapture(keepLimit: 0)
            errors += AppleHealthReader.read(
                XMLPullReader(source: CapturingSource(inner: reader, capture: capture), file: name),
                loadRoute: archiveRouteLoader(archive, export: entry), capture: capture, emit: emit)
        case .zip:
            guard depth == 0 else { throw nestedTooDeep(name) }
            let url = try reader.writeToTemporaryFile()
            defer { try? FileManager.default.removeItem(at: url) }
            try readNested(try ZipFileSource(path: url.path, name: name), name: name, depth: depth)
        case .fit:
            throw ImportError(
                file: name,
                message: "a FIT file of \(Self.describe(entry.uncompressedSize)): larger than the "
                    + "\(Self.describe(limits.inMemoryEntrySize)) read into memory")
        }
    }

    private mutating func readNested(_ source: any ZipByteSource, name: String, depth: Int) throws(ImportError) {
        guard depth == 0 else { throw nestedTooDeep(name) }
        read(try ZipArchive(source: source, name: name, maxEntryCount: limits.maxEntryCount), depth: depth + 1)
    }

    private func nestedTooDeep(_ name: String) -> ImportError {
        ImportError(file: name, message: "a zip inside a zip inside a zip: not read (one level of nesting at most)")
    }

    // MARK: - Apple Health

    /// Reads an `export.xml` entry as it inflates, with its route files from the same archive.
    /// The XML reader reads to the end of the entry, so its size and CRC-32 are checked before
    /// the first workout is handed out.
    private mutating func readAppleHealth(_ entry: ZipEntry, in archive: ZipArchive) {
        do throws(ImportError) {
            try budget.admit(entry, in: archive)
            let reader = try ZipEntryReader(archive: archive, entry: entry)
            let capture = FileCapture(keepLimit: Int(limits.inMemoryEntrySize))
            let xml = XMLPullReader(source: CapturingSource(inner: reader, capture: capture), file: archive.displayName(entry))
            errors += AppleHealthReader.read(xml, loadRoute: archiveRouteLoader(archive, export: entry), capture: capture, emit: emit)
        } catch {
            errors.append(error)
        }
    }

    /// Finds `FileReference` paths among the archive's entries, relative to the folder of the
    /// `export.xml` entry. Route files count in the archive's limits like any entry.
    private func archiveRouteLoader(_ archive: ZipArchive, export: ZipEntry) -> AppleHealthReader.RouteLoader {
        let folder = String(export.name.dropLast(export.components.last?.count ?? 0))
        var entries: [String: ZipEntry] = [:]
        for entry in archive.entries where entries[entry.name] == nil { entries[entry.name] = entry }
        let exportName = archive.displayName(export)
        let budget = budget
        return { path, draft in
            guard let components = AppleHealthReader.routeComponents(path) else {
                return .failure(AppleHealthReader.outsideExport(path, export: exportName, line: draft.line))
            }
            guard let entry = entries[folder + components.joined(separator: "/")] else {
                return .failure(AppleHealthReader.missingRoute(path, export: exportName, line: draft.line))
            }
            return Result { () throws(ImportError) -> Route in try Self.readRoute(entry, in: archive, budget: budget) }
        }
    }

    /// Reads one route GPX entry.
    private static func readRoute(_ entry: ZipEntry, in archive: ZipArchive, budget: ArchiveBudget) throws(ImportError) -> Route {
        try budget.admit(entry, in: archive)
        let name = archive.displayName(entry)
        let reader = try ZipEntryReader(archive: archive, entry: entry)
        if entry.uncompressedSize <= budget.limits.inMemoryEntrySize {
            return try AppleHealthReader.routeOfGPX(try reader.readAll(), file: name)
        }
        var parser = GPXParser(reader: XMLPullReader(source: reader, file: name))
        let route = try parser.parse().route
        try reader.drain()
        return route
    }
}

/// The limits of one archive on disk and what its entries (nested archives and route files
/// included) have used of them.
final class ArchiveBudget {
    let limits: ArchiveLimits
    /// Uncompressed bytes of the entries read so far.
    private(set) var total: UInt64 = 0

    init(limits: ArchiveLimits) {
        self.limits = limits
    }

    /// Refuses an entry whose declared sizes look like a zip bomb, and counts it in the total.
    func admit(_ entry: ZipEntry, in archive: ZipArchive) throws(ImportError) {
        let name = archive.displayName(entry)
        let size = entry.uncompressedSize
        guard size <= limits.maxEntrySize else {
            throw ImportError(
                file: name,
                message: "declares \(ArchiveWalker.describe(size)) uncompressed, "
                    + "more than the \(ArchiveWalker.describe(limits.maxEntrySize)) allowed for an entry")
        }
        if entry.method == 8, size > limits.ratioCheckMinimumSize {
            let ratio = size / max(1, entry.compressedSize)
            guard ratio <= limits.maxCompressionRatio else {
                throw ImportError(
                    file: name,
                    message: "\(ArchiveWalker.describe(entry.compressedSize)) that inflate to "
                        + "\(ArchiveWalker.describe(size)) (\(ratio):1, "
                        + "more than \(limits.maxCompressionRatio):1): refused as a zip bomb")
            }
        }
        guard total + size <= limits.maxTotalSize else {
            throw ImportError(
                file: name,
                message: "the entries read add up to more than \(ArchiveWalker.describe(limits.maxTotalSize)) uncompressed: "
                    + "refused as a zip bomb")
        }
        total += size
    }
}
