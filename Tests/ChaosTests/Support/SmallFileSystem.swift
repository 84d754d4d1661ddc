import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs that only some processes see: a holder process in a mount namespace of its own
/// (`unshare -m`) mounts it over a directory and sleeps; other processes join its namespace with
/// `nsenter -t PID -m`, and this process reaches the files through `/proc/PID/root`. Nothing is
/// mounted where the rest of the machine looks. Needs root, or user namespaces (`unshare -rm`).
final class SmallFileSystem {
    let holder: ManagedProcess
    /// Where the file system is mounted, as the processes in the namespace see it.
    let mountPoint: String
    let sizeBytes: Int

    /// Mounts a tmpfs of `sizeBytes` at `mountPoint` (an existing directory) in a new namespace.
    /// - Throws: when the namespace or the mount cannot be made (the message says why).
    init(mountPoint: String, sizeBytes: Int, logURL: URL) throws {
        self.mountPoint = mountPoint
        self.sizeBytes = sizeBytes
        let unprivileged = getuid() != 0
        holder = ManagedProcess(
            name: "tmpfs-holder", executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            arguments: (unprivileged ? ["-r"] : []) + [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=\(sizeBytes) workfeed-cache \"$0\" && echo mounted && exec sleep 100000", mountPoint,
            ],
            logURL: logURL)
        try holder.start()
        let deadline = Date().addingTimeInterval(20)
        while holder.isRunning && !holder.log().contains("mounted") && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard holder.isRunning, holder.log().contains("mounted") else {
            holder.kill9()
            throw ChaosFailure(
                "cannot mount a small tmpfs in a mount namespace of its own (needs root or user namespaces): \(holder.terminationDescription)\n\(holder.logTail())"
            )
        }
    }

    /// The command that runs a program in the namespace: `nsenter -t PID -m --`.
    var enter: [String] {
        ["/usr/bin/nsenter", "-t", "\(holder.pid ?? 0)", "-m"] + (getuid() != 0 ? ["-U", "--preserve-credentials"] : []) + ["--"]
    }

    /// `mountPoint` as this process reaches it.
    var outside: String { "/proc/\(holder.pid ?? 0)/root\(mountPoint)" }

    /// Fills what is left with one file; returns its size.
    @discardableResult
    func fill() throws -> Int {
        let path = outside + "/.filler"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw ChaosFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x46, count: 64 << 10)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { written += count; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        // The last bytes a chunk could not hold.
        while chunk.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, 1) }) == 1 { written += 1 }
        return written
    }

    /// Frees what ``fill()`` took.
    func free() throws {
        guard unlink(outside + "/.filler") == 0 else { throw ChaosFailure("cannot remove the filler: \(String(cString: strerror(errno)))") }
    }

    func tearDown() { holder.kill9() }
}
