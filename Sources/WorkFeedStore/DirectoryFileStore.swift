import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files in a directory only their owner may read: folders are made 0700 and files 0600 whatever
/// the umask, and ``prepare()`` narrows anything wider it finds. Written as pictures are (a
/// temporary file beside the name, synced, renamed over it), read following no symbolic link.
public struct DirectoryFileStore: FileStore {
    public let root: String
    /// Larger files are not read back (a kept original is a compressed workout file).
    public static let maximumFileSize = 1 << 30

    public init(root: String) {
        self.root = root
    }

    public var description: String { root }
    public var isLocal: Bool { true }

    public func location(of name: String) -> String { root + "/" + name }

    public func put(_ bytes: [UInt8], as name: String, contentType: String) throws(PictureStoreError) {
        let path = try checked(name)
        try Self.makePrivateDirectory((path as NSString).deletingLastPathComponent)
        try DirectoryPictureStore.writeDurably(bytes, to: DirectoryPictureStore.temporaryName(for: path), renamingTo: path, mode: 0o600)
    }

    public func get(_ name: String) throws(PictureStoreError) -> [UInt8]? {
        _ = try checked(name)
        return try DirectoryPictureStore.readInside(root: root, relative: name, maximumSize: Self.maximumFileSize)
    }

    public func head(_ name: String, count: Int) throws(PictureStoreError) -> [UInt8]? {
        let path = try checked(name)
        guard let descriptor = try DirectoryPictureStore.openInside(root: root, relative: name) else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, count) }
        guard read >= 0 else { throw PictureStoreError(step: "read", errno: errno, path: path) }
        return Array(bytes.prefix(read))
    }

    public func contains(_ name: String) throws(PictureStoreError) -> Bool {
        _ = try checked(name)
        return DirectoryPictureStore.isRegularFileInside(root: root, relative: name)
    }

    public func delete(_ names: [String]) -> [(name: String, error: PictureStoreError)] {
        var failures: [(name: String, error: PictureStoreError)] = []
        for name in names {
            do {
                try DirectoryPictureStore.remove(try checked(name))
            } catch {
                failures.append((name, error))
            }
        }
        return failures
    }

    public func names() throws(PictureStoreError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue, let walker = FileManager.default.enumerator(atPath: root) else {
            throw PictureStoreError(step: "list", errno: ENOTDIR, path: root)
        }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            guard !(relative as NSString).lastPathComponent.hasPrefix("."), walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular
            else { continue }
            found.append(relative)
        }
        return found
    }

    public func prepare() throws(PictureStoreError) -> Int {
        try Self.makePrivateDirectory(root)
        _ = DirectoryPictureStore.sweep(root: root)
        var narrowed = 0
        guard let walker = FileManager.default.enumerator(atPath: root) else { return 0 }
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            let mode: mode_t = (status.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600
            if (status.st_mode & S_IFMT) != S_IFLNK && chmod(path, mode) == 0 { narrowed += 1 }
        }
        return narrowed
    }

    /// Removes the empty folders below the root, and the root when it is empty then: what a
    /// directory whose files were moved elsewhere leaves.
    public func removeEmptyFolders() {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        var folders: [String] = []
        while let relative = walker.nextObject() as? String {
            if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory { folders.append(root + "/" + relative) }
        }
        for folder in folders.reversed() { rmdir(folder) }
        rmdir(root)
    }

    /// The path of `name`, which must be relative with no empty, `.` or `..` segment.
    func checked(_ name: String) throws(PictureStoreError) -> String {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !name.utf8.contains(0), segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw PictureStoreError(.corrupt, step: "name", path: root + "/" + name)
        }
        return root + "/" + name
    }

    /// Makes `path` a directory of mode 0700 (its missing parents too), or narrows an existing one
    /// to it (`narrowing`; a parent that was there already is left as it is).
    static func makePrivateDirectory(_ path: String, narrowing: Bool = true) throws(PictureStoreError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            guard errno == ENOENT, path != "/" else { throw PictureStoreError(step: "mkdir", errno: errno, path: path) }
            try makePrivateDirectory((path as NSString).deletingLastPathComponent, narrowing: false)
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw PictureStoreError(step: "mkdir", errno: errno, path: path) }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw PictureStoreError(step: "stat", errno: errno, path: path) }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw PictureStoreError(step: "stat", errno: ENOTDIR, path: path) }
        if narrowing && status.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 { throw PictureStoreError(step: "chmod", errno: errno, path: path) }
    }
}
