import ArgumentParser
import Foundation
import WorkFeedConfig
import WorkFeedModel
import WorkFeedTokens

extension WorkCtl {
    /// `workctl token`: bearer tokens for the gateway (docs/gateway.md, "Tokens").
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the gateway's token secret, and tokens for an owner (operators and tests).",
            subcommands: [Create.self, Secret.self])
    }
}

extension WorkCtl.Token {
    /// `workctl token create --owner ID --expires 30d`: an HS256 token whose `sub` is the owner.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a bearer token for an owner, signed with the gateway's secret (HS256).",
            discussion: """
                The app's own account system normally signs tokens with the same secret; this is for \
                operators and tests. The token is printed on standard output alone, so that \
                TOKEN=$(workctl token create ...) works.
                """)

        @Option(name: .long, help: "The owner (the app's user id); it becomes the token's sub.")
        var owner: String

        @Option(name: .long, help: "How long it is valid: a number with its unit, d, h, m or s (30d, 12h, 900s); a bare number is refused.")
        var expires: String = "30d"

        @Option(name: .long, help: "The file holding the secret (the gateway's tokens.secret_file; env WORKFEED_TOKENS_SECRET_FILE).")
        var secretFile: String?

        mutating func validate() throws {
            secretFile = secretFile ?? ProcessInfo.processInfo.environment["WORKFEED_TOKENS_SECRET_FILE"]
            try validateOwner(owner)
            if let number = Int(expires) {
                // A bare number was read as seconds once: `--expires 30` made a 30-second token.
                throw ValidationError(
                    "--expires: '\(expires)' has no unit: write \(number)d (days), \(number)h (hours), \(number)m (minutes) or \(number)s (seconds)")
            }
            guard Self.seconds(expires) != nil else {
                throw ValidationError("--expires: '\(expires)' is not a duration such as 30d, 12h, 15m or 900s (units d, h, m, s; at most 3650d)")
            }
            guard secretFile != nil else { throw ValidationError("--secret-file is needed (or WORKFEED_TOKENS_SECRET_FILE)") }
        }

        func run() throws {
            guard let secretFile, let seconds = Self.seconds(expires) else { throw WorkCtlExit.failed }
            let secret: [UInt8]
            do {
                secret = try TokenSecret.read(file: secretFile)
            } catch {
                printError("cannot read the secret \(secretFile): \(error.localizedDescription)")
                throw WorkCtlExit.failed
            }
            guard secret.count >= TokenSecret.minimumLength else {
                printError("the secret in \(secretFile) has \(secret.count) bytes; the gateway needs at least \(TokenSecret.minimumLength)")
                throw WorkCtlExit.failed
            }
            say(OwnerToken(owner: owner, expires: Date().addingTimeInterval(seconds)).signed(secret: secret))
        }

        /// `30d`, `12h`, `15m` or `900s`, in seconds; `nil` for anything else (a number without
        /// its unit too) or over ten years.
        static func seconds(_ text: String) -> Double? {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard let last = text.last, let unit = units[last] else { return nil }
            guard let value = Int(text.dropLast()), value > 0 else { return nil }
            let seconds = Double(value) * unit
            return seconds <= 3650 * 86_400 ? seconds : nil
        }
    }

    /// `workctl token secret --out FILE`: a new random secret for the gateway (and the app).
    struct Secret: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new random token secret (48 random bytes as base64url text) to a file only its owner can read.")

        @Option(name: .long, help: "The file to write; it must not exist.")
        var out: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: out) else {
                printError("\(out) exists; a secret is never overwritten")
                throw WorkCtlExit.failed
            }
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard
                FileManager.default.createFile(
                    atPath: out, contents: Data((Base64URL.encode(bytes) + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else {
                printError("cannot write \(out)")
                throw WorkCtlExit.failed
            }
            say("token secret written to \(out) (mode 600): give it to the gateway (tokens.secret_file) and the app's account system")
        }
    }
}
