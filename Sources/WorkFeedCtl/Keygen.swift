import ArgumentParser
import Foundation
import WorkFeedWire

extension WorkCtl {
    /// `workctl keygen`: a CURVE key pair for a coordinator, a worker or an operator.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a CURVE key pair (for the coordinator, a worker or an operator).",
            discussion: """
                Writes the pair to --out (readable by its owner only) and prints the public key. Give the \
                coordinator's public key to workers and operators (security.server_key, --server-key); list \
                workers' public keys in the coordinator's security.worker_keys, operators' in security.operator_keys.
                """)

        @Option(name: .long, help: "The key file to write; it must not exist.")
        var out: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: out) else {
                printError("\(out) exists; keygen never overwrites a key")
                throw WorkCtlExit.failed
            }
            let pair = try CurveKeyPair.generate()
            guard FileManager.default.createFile(atPath: out, contents: Data(pair.fileContents.utf8), attributes: [.posixPermissions: 0o600]) else {
                printError("cannot write \(out)")
                throw WorkCtlExit.failed
            }
            say("public key: \(pair.publicKey)")
            say("key pair written to \(out) (mode 600)")
        }
    }
}
