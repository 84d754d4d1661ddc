import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program the test support starts with `posix_spawn`, instead of Foundation's `Process`.
///
/// swift-corelibs-foundation's `Process.run()` crashes at random on Linux (a signal 11 in a
/// `memcpy`: `findMaximumOpenFromProcSelfFD()` copies the whole 256-byte `d_name` of a
/// `/proc/self/fd` entry and reads past the end of glibc's buffer; fixed upstream by
/// swift-corelibs-foundation PR #5472, not in the toolchain here). It crashed a whole test run in
/// `PostgresTestServer`, which starts `pg_isready` every tenth of a second while a server starts
/// and `createdb` for every test database. This starts a program without that code: standard
/// input from `/dev/null`, standard output and error into one file (or `/dev/null`), the test
/// process's environment, and every other descriptor closed in the child.
public final class SpawnedProcess: Sendable {
    /// How a program ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public let pid: Int32
    public let program: String
    private let ended = Mutex<Termination?>(nil)

    /// Starts `program` (a path) with `arguments`.
    /// - Parameter output: the file its standard output and error are appended to (made when
    ///   missing); `nil`: `/dev/null`.
    /// - Throws: ``SpawnError`` naming the program and the system's reason.
    public init(_ program: String, _ arguments: [String], output: String? = nil) throws(SpawnError) {
        self.program = program
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        Self.closeFrom3?(&actions, 3)
        // Signals as a new program expects them: none blocked, each at its default (the test
        // thread's mask and ignored signals would otherwise be inherited, and a server's SIGTERM
        // or SIGQUIT ignored).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: Int32 = 0
        let status = posix_spawn(&child, program, &actions, &attributes, argv, environ)
        guard status == 0 else { throw SpawnError(program: program, errno: status) }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Swift's Glibc module
    /// does not declare it), looked up once: the child closes every descriptor from 3 up, so a
    /// test's sockets and files never stay open in a server it started.
    private static let closeFrom3: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Runs `program` to its end; how it ended.
    public static func run(_ program: String, _ arguments: [String], output: String? = nil) throws(SpawnError) -> Termination {
        try SpawnedProcess(program, arguments, output: output).wait()
    }

    /// Waits for the program's end (blocking this thread: call it off Swift's cooperative pool).
    @discardableResult
    public func wait() -> Termination {
        while true {
            if let ended = reap(options: 0) { return ended }
        }
    }

    /// Whether it has not ended yet (an ended child is reaped).
    public var isRunning: Bool { reap(options: WNOHANG) == nil }

    /// Sends `signal` to the program, unless it has ended.
    public func signal(_ signal: Int32) {
        if isRunning { Glibc.kill(pid, signal) }
    }

    /// `waitpid` once, outside the lock (a thread waiting must not keep another from signalling);
    /// the termination when the child ended, kept for later calls; `nil` while it runs (or when
    /// the wait was interrupted).
    private func reap(options: Int32) -> Termination? {
        if let known = ended.withLock({ $0 }) { return known }
        var status: Int32 = 0
        let result = waitpid(pid, &status, options)
        if result == 0 { return nil }
        if result < 0 {
            if errno == EINTR { return nil }
            // ECHILD: another thread reaped it, and is about to say how it ended.
            for _ in 0..<1_000 {
                if let known = ended.withLock({ $0 }) { return known }
                usleep(1_000)
            }
            return ended.withLock { known in
                known = known ?? .exited(-1)
                return known
            }
        }
        // WIFEXITED and friends are macros Swift does not import.
        let signal = status & 0x7f
        let now: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        return ended.withLock { known in
            known = known ?? now
            return known
        }
    }
}

/// A program that could not be started.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public let program: String
    public let errno: Int32

    public var description: String { "could not start \(program): \(String(cString: strerror(errno)))" }
}
