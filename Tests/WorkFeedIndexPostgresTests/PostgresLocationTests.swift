import Foundation
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres

/// `index.url` is read whole or refused naming what is wrong, and never repeats a password.
@Suite struct PostgresLocationTests {
    @Test func aServerOverTCPOrASocket() throws {
        let tcp = try PostgresIndexLocation(url: "postgres://feed@db.internal:6432/workfeed")
        #expect(tcp.endpoint == .tcp(host: "db.internal", port: 6432))
        #expect(tcp.user == "feed" && tcp.database == "workfeed")
        // Over a network the server's certificate is checked unless asked otherwise.
        #expect(tcp.tls == .verifyFull)
        #expect(tcp.description == "postgres://feed@db.internal:6432/workfeed?sslmode=verify-full")

        let plain = try PostgresIndexLocation(url: "postgresql://feed@10.0.0.5/workfeed?sslmode=disable")
        #expect(plain.endpoint == .tcp(host: "10.0.0.5", port: 5432) && plain.tls == .disable)

        let socket = try PostgresIndexLocation(url: "postgres://feed@/workfeed?host=/run/postgresql")
        #expect(socket.endpoint == .socket(directory: "/run/postgresql", port: 5432))
        #expect(socket.tls == .disable)
        #expect(socket.description == "postgres://feed@:5432/workfeed?host=/run/postgresql")
    }

    @Test(
        arguments: [
            ("http://feed@db/workfeed", "has the scheme http:, not postgres:"),
            ("postgres://db/workfeed", "names no user"),
            ("postgres://feed@db", "names no database"),
            ("postgres://feed@db/a/b", "names no database"),
            ("postgres://feed@db:0/workfeed", "has the port 0"),
            ("postgres://feed@db/workfeed?sslmode=prefer", "has sslmode=prefer: one of disable, require, verify-full"),
            ("postgres://feed@db/workfeed?pool=4", "has the parameter pool, which WorkFeed does not know"),
            ("postgres://feed@/workfeed", "names no host"),
            ("postgres://feed@/workfeed?host=run/pg", "a socket directory starts with /"),
            ("postgres://feed@db/workfeed?host=/run/pg", "names both a host and a socket directory"),
            ("postgres://feed@/workfeed?host=/run/pg&sslmode=require", "asks for TLS over a Unix socket"),
            ("not a url at all", "is not a URL"),
        ])
    func aBadURLIsRefusedNamingWhatIsWrong(url: String, why: String) {
        do {
            _ = try PostgresIndexLocation(url: url)
            Issue.record("\(url) was taken")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains(why), "\(error)")
            #expect(error.message.hasPrefix("index.url"), "\(error)")
        }
    }

    /// A password in the URL would be in configuration files, process lists and logs: it is
    /// refused, and the error does not repeat it.
    @Test func aPasswordInTheURLIsRefusedAndNotRepeated() {
        do {
            _ = try PostgresIndexLocation(url: "postgres://feed:hunter2@db/workfeed")
            Issue.record("a password in the URL was taken")
        } catch {
            #expect(error.message.contains("holds a password: give it in a file"))
            #expect(!error.message.contains("hunter2"), "\(error)")
        }
    }

    @Test func thePasswordIsTheFirstLineOfItsFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wf-pw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("password")
        // As a Kubernetes secret or `echo secret > file` leaves it: one line, a newline after it.
        try Data("s3cret pass\r\nnot this\n".utf8).write(to: file)
        let location = try PostgresIndexLocation(url: "postgres://feed@db/workfeed", passwordFile: file.path)
        #expect(location.password == "s3cret pass")
        #expect(!location.description.contains("s3cret"))

        try Data("\n".utf8).write(to: file)
        #expect(throws: IndexError.self) { try PostgresIndexLocation(url: "postgres://feed@db/workfeed", passwordFile: file.path) }
        do {
            _ = try PostgresIndexLocation(url: "postgres://feed@db/workfeed", passwordFile: directory.appendingPathComponent("absent").path)
            Issue.record("a missing password file was taken")
        } catch {
            #expect(error.code == .unavailable && error.message.contains("absent cannot be read"), "\(error)")
        }
    }
}
