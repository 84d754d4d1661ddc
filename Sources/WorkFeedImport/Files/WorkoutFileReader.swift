public import Foundation
public import WorkFeedModel

/// Reads workout files of any supported format: GPX, TCX, FIT, zip archives of them, and Apple
/// Health exports (`export.zip`, the `apple_health_export` folder or its `export.xml`).
///
/// ```swift
/// for url in try WorkoutFileReader.collectFiles(["~/Exports"]) {
///     let batch = WorkoutFileReader.readAll(contentsOf: url)   // workouts and per-part errors
/// }
/// ```
public enum WorkoutFileReader {
    /// Reads one file, choosing the format by its content (sniffing), falling back to the
    /// extension when the content is not recognized.
    ///
    /// All or nothing: for an archive or an Apple Health export, any error (one broken entry, one
    /// missing route file) is thrown and the rest is not returned; ``readAll(contentsOf:limits:)``
    /// returns both.
    /// - Returns: the workouts in the file: one for GPX and FIT, one per activity or course for
    ///   TCX, one per workout of an Apple Health export, all of them for a zip.
    /// - Throws: ``ImportError`` when the file cannot be read, its format is unknown or its
    ///   content is broken; never a partial result.
    public static func read(contentsOf url: URL) throws(ImportError) -> [ImportedWorkout] {
        try readAll(contentsOf: url).workoutsOrFirstError()
    }

    /// Reads one file's bytes.
    /// - Parameter file: the file's path, used in errors, as the workouts' origin and for its
    ///   extension when the content is not recognized.
    /// - Throws: ``ImportError``, as ``read(contentsOf:)``.
    public static func read(bytes: [UInt8], file: String) throws(ImportError) -> [ImportedWorkout] {
        try readAll(bytes: bytes, file: file).workoutsOrFirstError()
    }

    /// Reads a file or a folder and returns what could be read together with what could not.
    ///
    /// - A GPX, TCX or FIT file: its workouts, or its error.
    /// - A zip archive: every `.gpx`, `.tcx`, `.fit` and `.zip` entry (a zip inside the zip is
    ///   read too, one level deep), and every Apple Health `export.xml` with its route files.
    ///   Folders, `__MACOSX/` and dot files are skipped. Each entry that fails gives an error
    ///   naming `archive.zip:path/inside`; the other entries are still read. Limits against zip
    ///   bombs: see ``ArchiveLimits``.
    /// - An Apple Health `export.xml`, or a folder holding one: see ``AppleHealthReader``.
    /// - Any other folder: the files ``collectFiles(_:)`` finds in it.
    ///
    /// Every workout is kept in memory until the end; ``readEach(contentsOf:limits:_:)`` hands
    /// them out one at a time instead.
    public static func readAll(contentsOf url: URL, limits: ArchiveLimits = .standard) -> ImportBatch {
        var workouts: [ImportedWorkout] = []
        let errors = readEach(contentsOf: url, limits: limits) { workouts.append($0) }
        return ImportBatch(workouts: workouts, errors: errors)
    }

    /// Reads what ``readAll(contentsOf:limits:)`` reads, handing each workout to `body` as soon
    /// as it is complete. Memory then holds one workout's route at a time (plus, for an Apple
    /// Health export, every heart-rate sample at 8 bytes each and a small record per workout),
    /// whatever the size of the archive or export.
    /// - Returns: the errors, in the order met.
    public static func readEach(
        contentsOf url: URL, limits: ArchiveLimits = .standard, _ body: (ImportedWorkout) -> Void
    ) -> [ImportError] {
        withoutActuallyEscaping(body) { emit in read(url, limits: limits, emit: { emit(WorkoutActivity.resolved(WorkoutTimeZone.resolved($0))) }) }
    }

    /// Reads a file's bytes held in memory, as ``readAll(contentsOf:limits:)``. An Apple Health
    /// `export.xml` given this way finds its route files beside `file` on disk.
    public static func readAll(bytes: [UInt8], file: String, limits: ArchiveLimits = .standard) -> ImportBatch {
        var workouts: [ImportedWorkout] = []
        let errors = withoutActuallyEscaping({ (workout: ImportedWorkout) in
            workouts.append(WorkoutActivity.resolved(WorkoutTimeZone.resolved(workout)))
        }) { emit in
            do throws(ImportError) {
                return try read(bytes: bytes, file: file, limits: limits, emit: emit)
            } catch {
                return [error]
            }
        }
        return ImportBatch(workouts: workouts, errors: errors)
    }

    static let appleHealthExportName = "export.xml"

    private static func read(_ url: URL, limits: ArchiveLimits, emit: @escaping (ImportedWorkout) -> Void) -> [ImportError] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            return [ImportError(file: url.path, message: "cannot read the file: no such file or folder")]
        }
        guard isFolder.boolValue else {
            do throws(ImportError) {
                return try readFile(url, limits: limits, emit: emit)
            } catch {
                return [error]
            }
        }
        let export = url.appendingPathComponent(appleHealthExportName)
        if RegularFile.isRegular(export.path) { return AppleHealthReader.readEach(exportAt: export, emit) }
        var errors: [ImportError] = []
        do throws(ImportError) {
            for file in try collectFiles([url.path]) { errors += read(file, limits: limits, emit: emit) }
        } catch {
            errors.append(error)
        }
        return errors
    }

    private static func read(
        bytes: [UInt8], file: String, limits: ArchiveLimits, emit: @escaping (ImportedWorkout) -> Void
    ) throws(ImportError) -> [ImportError] {
        guard !bytes.isEmpty else { throw ImportError(file: file, message: "the file is empty") }
        switch try format(of: bytes, file: file) {
        case .zip:
            var walker = ArchiveWalker(limits: limits, emit: emit)
            walker.read(try ZipArchive(source: ZipMemorySource(bytes), name: file, maxEntryCount: limits.maxEntryCount), depth: 0)
            return walker.errors
        case .appleHealth:
            let reader = XMLPullReader(bytes: bytes, file: file)
            return AppleHealthReader.read(
                reader, loadRoute: AppleHealthReader.folderRouteLoader(export: URL(fileURLWithPath: file)),
                capture: FileCapture(bytes: bytes, keepLimit: Int(limits.inMemoryEntrySize)), emit: emit)
        case let format:
            try readSingle(bytes, format: format, file: file, keepLimit: limits.inMemoryEntrySize).forEach(emit)
            return []
        }
    }

    /// Sniffs the first bytes of a file and reads it the way its format needs: archives and
    /// Apple Health exports from disk as they go, GPX and TCX files as a stream when they are
    /// large, the rest whole.
    private static func readFile(
        _ url: URL, limits: ArchiveLimits, emit: @escaping (ImportedWorkout) -> Void
    ) throws(ImportError) -> [ImportError] {
        let path = url.path
        let handle = try RegularFile.open(path)
        defer { try? handle.close() }
        let head: [UInt8]
        let size: UInt64
        do {
            head = [UInt8](try handle.read(upToCount: 64 << 10) ?? Data())
            size = try handle.seekToEnd()
        } catch {
            throw ImportError(file: path, message: "cannot read the file: \(error.localizedDescription)")
        }
        guard !head.isEmpty else { throw ImportError(file: path, message: "the file is empty") }
        switch try format(of: head, file: path) {
        case .zip:
            var walker = ArchiveWalker(limits: limits, emit: emit)
            let archive = try ZipArchive(source: ZipFileSource(path: path, name: path), name: path, maxEntryCount: limits.maxEntryCount)
            walker.read(archive, depth: 0)
            return walker.errors
        case .appleHealth:
            return AppleHealthReader.readEach(exportAt: url, emit)
        case .gpx where size > limits.inMemoryEntrySize:
            let capture = FileCapture(keepLimit: 0)
            var parser = GPXParser(reader: XMLPullReader(source: CapturingSource(inner: try XMLFileSource(path: path), capture: capture), file: path))
            let workout = try parser.parse()
            describe([workout], file: capture.file(name: path, format: "gpx"), original: nil).forEach(emit)
        case .tcx where size > limits.inMemoryEntrySize:
            let capture = FileCapture(keepLimit: 0)
            var parser = TCXParser(reader: XMLPullReader(source: CapturingSource(inner: try XMLFileSource(path: path), capture: capture), file: path))
            let workouts = try parser.parse()
            describe(workouts, file: capture.file(name: path, format: "tcx"), original: nil).forEach(emit)
        case let format:
            let bytes: [UInt8]
            do {
                try handle.seek(toOffset: 0)
                bytes = [UInt8](try handle.readToEnd() ?? Data())
            } catch {
                throw ImportError(file: path, message: "cannot read the file: \(error.localizedDescription)")
            }
            try readSingle(bytes, format: format, file: path, keepLimit: limits.inMemoryEntrySize).forEach(emit)
        }
        return []
    }

    /// Whether `bytes` are one GPX, TCX or FIT file (by their content, else by the extension of
    /// `file`): what an upload of one file may be. Archives and Apple Health exports are not.
    public static func isSingleWorkoutFile(_ bytes: [UInt8], file: String) -> Bool {
        let format = WorkoutFormat.sniff(bytes) ?? WorkoutFormat(pathExtension: URL(fileURLWithPath: file).pathExtension)
        switch format {
        case .gpx, .tcx, .fit: return true
        case .appleHealth, .zip, nil: return false
        }
    }

    /// The format of a file from its first bytes, else its extension, else its name.
    static func format(of head: [UInt8], file: String) throws(ImportError) -> WorkoutFormat {
        let url = URL(fileURLWithPath: file)
        if let format = WorkoutFormat.sniff(head) ?? WorkoutFormat(pathExtension: url.pathExtension) { return format }
        if url.lastPathComponent.lowercased() == appleHealthExportName { return .appleHealth }
        throw ImportError(
            file: file, message: "unknown file format: expected GPX, TCX, FIT, a zip archive or an Apple Health export.xml")
    }

    /// Reads a GPX, TCX or FIT file held in memory; each workout remembers the file
    /// (``ImportedWorkout/file``) and, up to `keepLimit` bytes, its bytes as the original.
    static func readSingle(
        _ bytes: [UInt8], format: WorkoutFormat, file: String, keepLimit: UInt64 = ArchiveLimits.standard.inMemoryEntrySize
    ) throws(ImportError) -> [ImportedWorkout] {
        let workouts: [ImportedWorkout]
        switch format {
        case .gpx:
            workouts = try GPXReader.read(bytes, file: file)
        case .tcx:
            workouts = try TCXReader.read(bytes, file: file)
        case .fit:
            workouts = try FITReader.read(bytes, file: file)
        case .appleHealth, .zip:
            return try readAll(bytes: bytes, file: file).workoutsOrFirstError()
        }
        return describe(
            workouts, file: WorkoutFile(name: file, bytes: bytes, format: format.name),
            original: UInt64(bytes.count) <= keepLimit ? bytes : nil)
    }

    /// The workouts of one file, each told the file it came from and its place in it.
    static func describe(_ workouts: [ImportedWorkout], file: WorkoutFile, original: [UInt8]?) -> [ImportedWorkout] {
        workouts.enumerated().map { position, workout in
            var workout = workout
            workout.file = file
            workout.positionInFile = position
            workout.original = original
            return workout
        }
    }
}
