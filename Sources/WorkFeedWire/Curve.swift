import CZeroMQ
import Foundation
public import WorkFeedModel

/// A CURVE key pair in Z85 text (40 characters each), as `workctl keygen` writes it.
///
/// Key file format (the secret key must stay private to its owner):
/// ```
/// # WorkFeed CURVE key pair
/// public: <40 characters>
/// secret: <40 characters>
/// ```
public struct CurveKeyPair: Sendable, Hashable {
    public var publicKey: String
    public var secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A new random key pair from libzmq (libsodium underneath).
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw ZMQError("zmq_curve_keypair (is libzmq built with CURVE?)") }
        return CurveKeyPair(publicKey: Self.text(publicKey), secretKey: Self.text(secretKey))
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key file's text.
    public var fileContents: String {
        "# WorkFeed CURVE key pair. Keep this file private; share only the public key.\npublic: \(publicKey)\nsecret: \(secretKey)\n"
    }

    /// Reads a key file written by ``fileContents``.
    /// - Throws: ``KeyFileError`` naming the file and line that is wrong.
    public static func load(file: String) throws(KeyFileError) -> CurveKeyPair {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw KeyFileError(file: file, line: nil, message: "cannot read: \(error.localizedDescription)")
        }
        var publicKey: String?
        var secretKey: String?
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[1].utf8.count == 40 else {
                throw KeyFileError(file: file, line: number + 1, message: "expected 'public: KEY' or 'secret: KEY' with a 40-character Z85 key")
            }
            switch parts[0] {
            case "public": publicKey = parts[1]
            case "secret": secretKey = parts[1]
            default: throw KeyFileError(file: file, line: number + 1, message: "unknown field '\(parts[0])' (public, secret)")
            }
        }
        guard let publicKey, let secretKey else {
            throw KeyFileError(file: file, line: nil, message: "needs both a 'public:' and a 'secret:' line")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }
}

/// A key file that cannot be used.
public struct KeyFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    public var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(message)" }
}

/// How a client socket authenticates to the coordinator: its own key pair and the coordinator's
/// public key.
public struct CurveClientKeys: Sendable, Hashable {
    public var serverKey: String
    public var keyPair: CurveKeyPair

    public init(serverKey: String, keyPair: CurveKeyPair) {
        self.serverKey = serverKey
        self.keyPair = keyPair
    }
}

extension ZMQSocket {
    /// Makes this (bound) socket a CURVE server whose clients are checked by the ZAP handler
    /// under `domain`, which says which roles the socket lets in.
    public func makeCurveServer(secretKey: String, domain: ZAP.Domain) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVER, int32: 1)
        try setOption(ZMQ_CURVE_SECRETKEY, string: secretKey)
        try setOption(ZMQ_ZAP_DOMAIN, string: domain.rawValue)
    }

    /// Makes this (connecting) socket a CURVE client of the server with `keys.serverKey`.
    public func makeCurveClient(_ keys: CurveClientKeys) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVERKEY, string: keys.serverKey)
        try setOption(ZMQ_CURVE_PUBLICKEY, string: keys.keyPair.publicKey)
        try setOption(ZMQ_CURVE_SECRETKEY, string: keys.keyPair.secretKey)
    }
}

/// The ZeroMQ Authentication Protocol (RFC 27) as WorkFeed uses it: a CURVE client is let in when
/// its public key belongs to a role that the socket it connects to takes (the socket's ZAP
/// domain); the role is handed back as the connection's user id, so that every message carries it.
public enum ZAP {
    /// libzmq asks the handler bound here, in the same context.
    public static let endpoint = "inproc://zeromq.zap.01"

    /// One per coordinator socket: which roles it lets in.
    public enum Domain: String, Sendable, Hashable, CaseIterable {
        case workers = "workfeed-workers"
        case control = "workfeed-control"
        case events = "workfeed-events"

        /// The roles whose keys this socket lets in.
        public var roles: Set<ClientRole> {
            switch self {
            case .workers: [.worker]
            case .control, .events: [.operator, .gateway]
            }
        }

        /// The socket's name in messages.
        public var socketName: String {
            switch self {
            case .workers: "worker socket"
            case .control: "control socket"
            case .events: "event socket"
            }
        }
    }

    /// A decision on one request.
    public struct Decision: Sendable {
        public var allowed: Bool
        /// The client's public key (Z85), or what was presented instead.
        public var client: String
        public var address: String
        /// The socket asked about, when the request named a known one.
        public var domain: Domain?
        /// The key's role, when it has one.
        public var role: ClientRole?
        /// Why it was refused, for the log; `nil` when allowed.
        public var refusal: String?
        public var reply: [[UInt8]]
    }

    /// Answers a ZAP request.
    /// - Parameter roles: the role of each allowed public key (Z85).
    public static func decide(_ frames: [[UInt8]], roles: [String: ClientRole]) -> Decision {
        // version, request id, domain, address, identity, mechanism, credentials...
        guard frames.count >= 6 else {
            return Decision(
                allowed: false, client: "?", address: "?", refusal: "malformed ZAP request",
                reply: reply(version: "1.0", id: [], code: "500", text: "malformed ZAP request"))
        }
        let version = String(decoding: frames[0], as: UTF8.self)
        let id = frames[1]
        let domain = Domain(rawValue: String(decoding: frames[2], as: UTF8.self))
        let address = String(decoding: frames[3], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        guard mechanism == "CURVE", frames.count >= 7, frames[6].count == 32 else {
            return Decision(
                allowed: false, client: mechanism, address: address, domain: domain, refusal: "no CURVE key",
                reply: reply(version: version, id: id, code: "400", text: "CURVE with an allowed key is required"))
        }
        let key = z85(frames[6])
        let role = roles[key]
        guard let domain else {
            return Decision(
                allowed: false, client: key, address: address, role: role, refusal: "unknown ZAP domain",
                reply: reply(version: version, id: id, code: "400", text: "unknown socket"))
        }
        guard let role else {
            return Decision(
                allowed: false, client: key, address: address, domain: domain, refusal: "key not allowed",
                reply: reply(version: version, id: id, code: "400", text: "key not allowed"))
        }
        guard domain.roles.contains(role) else {
            let text = "a \(role.rawValue) key may not use the \(domain.socketName)"
            return Decision(
                allowed: false, client: key, address: address, domain: domain, role: role, refusal: text,
                reply: reply(version: version, id: id, code: "400", text: text))
        }
        return Decision(
            allowed: true, client: key, address: address, domain: domain, role: role, refusal: nil,
            reply: reply(version: version, id: id, code: "200", text: "OK", user: role.rawValue))
    }

    private static func reply(version: String, id: [UInt8], code: String, text: String, user: String = "") -> [[UInt8]] {
        [Array(version.utf8), id, Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
    }

    /// Z85-encodes 32 bytes of key.
    static func z85(_ bytes: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: bytes.count * 5 / 4 + 1)
        _ = bytes.withUnsafeBufferPointer { zmq_z85_encode(&out, $0.baseAddress, $0.count) }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
