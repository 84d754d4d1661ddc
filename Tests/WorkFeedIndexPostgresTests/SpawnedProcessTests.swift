import Foundation
import Testing
import WorkFeedTesting

#if canImport(Glibc)
import Glibc
#endif

/// The launcher the test support starts servers and tools with, instead of Foundation's
/// `Process` (which crashes at random on Linux: ``SpawnedProcess``).
@Suite struct SpawnedProcessTests {
    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-spawn-\(UUID().uuidString).log").path
    }

    @Test func outputAndStatusAreThePrograms() throws {
        let output = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let ended = try SpawnedProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; read line; echo \"[$line]\"; exit 3"], output: output)
        #expect(ended == .exited(3))
        // Standard input is /dev/null: `read` finds nothing.
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "out\nerr\n[]\n")
        // Appended, not replaced.
        #expect(try SpawnedProcess.run("/bin/echo", ["again"], output: output) == .exited(0))
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasSuffix("[]\nagain\n"))
    }

    @Test func aSignalIsToldFromAnExit() throws {
        #expect(try SpawnedProcess.run("/bin/sh", ["-c", "kill -9 $$"]) == .signalled(SIGKILL))
        let sleeper = try SpawnedProcess("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.signal(SIGTERM)
        #expect(sleeper.wait() == .signalled(SIGTERM))
        #expect(!sleeper.isRunning)
        #expect(sleeper.wait() == .signalled(SIGTERM), "asked again, the same answer")
    }

    @Test func aMissingProgramIsNamed() {
        #expect {
            try SpawnedProcess("/no/such/program", [])
        } throws: { error in
            "\(error)" == "could not start /no/such/program: No such file or directory"
        }
    }

    /// The child has only its three standard descriptors (and the one `ls` opens to list them):
    /// a file the test holds open, even without close-on-exec, is not inherited.
    @Test func noOtherDescriptorReachesTheChild() throws {
        let held = open("/etc/hostname", O_RDONLY)
        #expect(held > 2)
        defer { close(held) }
        let output = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: output) }
        #expect(try SpawnedProcess.run("/bin/ls", ["/proc/self/fd"], output: output) == .exited(0))
        let listed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(!listed.contains(Int(held)) || Int(held) == 3, "\(listed)")
        #expect(listed.count <= 4, "\(listed)")
    }
}
