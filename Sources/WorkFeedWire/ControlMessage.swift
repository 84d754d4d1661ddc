import Foundation
import WorkFeedModel

/// The operator commands the coordinator answers on its control socket (docs/PROTOCOL.md,
/// "Control protocol").
public enum ControlCommand: String, Sendable, Hashable, CaseIterable {
    case ping = "PING"
    case importWorkout = "IMPORT"
    case enqueue = "ENQUEUE"
    case status = "STATUS"
    case show = "SHOW"
    case feed = "FEED"
    case delete = "DELETE"
    case changes = "CHANGES"
    case failed = "FAILED"
    case resolve = "RESOLVE"
    case original = "ORIGINAL"
    case zones = "ZONES"
    case settings = "SETTINGS"
    /// Whether a picture's cache key was withdrawn (the gateway's 410 Gone).
    case picture = "PICTURE"
    /// An owner's totals per day, week, month or year (``SummaryRequest``).
    case summary = "SUMMARY"
    /// A workout's visible route, simplified, and its series for a chart (``TrackRequest``).
    case track = "TRACK"
    /// A file's workouts imported, their pictures requested and each returned as the feed shows
    /// it, in one transaction (``UploadRequest``): the gateway's upload as one unit.
    case upload = "UPLOAD"
}

/// `[WFC1][request id: u64, deadline: u64?][COMMAND][body: JSON][attachment...]`
public struct ControlRequest: Sendable, Hashable {
    public static let protocolName = "WFC1"

    public var id: UInt64
    public var command: ControlCommand
    public var body: [UInt8]
    /// Binary frames after the body (the series of an IMPORT).
    public var attachments: [[UInt8]]
    /// When the client stops waiting for the reply, in milliseconds since the Unix epoch (UTC):
    /// the coordinator carries out no request past it (docs/PROTOCOL.md, "Deadlines"), so a
    /// client that gave up knows the request was not done and never will be.
    public var deadline: UInt64?

    public init(id: UInt64, command: ControlCommand, body: [UInt8], attachments: [[UInt8]] = [], deadline: UInt64? = nil) {
        self.id = id
        self.command = command
        self.body = body
        self.attachments = attachments
        self.deadline = deadline
    }

    public var frames: [[UInt8]] {
        [Array(Self.protocolName.utf8), id.bigEndianBytes + (deadline?.bigEndianBytes ?? []), Array(command.rawValue.utf8), body] + attachments
    }

    /// Whether the request's deadline has passed at `now` (milliseconds since the Unix epoch).
    public func isPastDeadline(at now: UInt64 = ControlRequest.now()) -> Bool {
        deadline.map { $0 <= now } ?? false
    }

    /// The wall clock in milliseconds since the Unix epoch, as deadlines are written.
    public static func now() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    }

    /// Parses a request (after the routing envelope).
    /// - Throws: ``WireError`` naming the frame that is wrong.
    public init(frames: [[UInt8]]) throws(WireError) {
        guard let first = frames.first, first.elementsEqual(Self.protocolName.utf8) else {
            throw WireError("frame 0 must be the protocol \(Self.protocolName)")
        }
        var reader = FrameReader(frames, command: "request", start: 1)
        let head = try reader.bytes("request id")
        guard head.count == 8 || head.count == 16 else {
            throw WireError("request: frame 1 (request id, and optionally a deadline) must be 8 or 16 bytes, is \(head.count)")
        }
        id = head.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        deadline = head.count == 16 ? head.dropFirst(8).reduce(0) { $0 << 8 | UInt64($1) } : nil
        let name = try reader.text("command", maximumBytes: 32)
        guard let command = ControlCommand(rawValue: name) else {
            let known = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            throw WireError("unknown command '\(name.prefix(40))' (known: \(known))")
        }
        self.command = command
        body = try reader.bytes("body")
        guard body.count <= ControlLimits.maximumBodyBytes else {
            throw WireError("\(name): frame 3 (body) is \(body.count) bytes, at most \(ControlLimits.maximumBodyBytes)")
        }
        attachments = Array(frames.dropFirst(reader.index))
        guard command == .importWorkout || command == .upload || attachments.isEmpty else {
            throw WireError("\(name): \(attachments.count) unexpected frame(s) after the body (only IMPORT and UPLOAD carry attachments)")
        }
    }
}

/// `[WFC1][request id: u64][OK|ERROR][body: JSON][attachment...]`; an ERROR's body is
/// `{"error": "..."}`. Only an ORIGINAL reply has an attachment (the file).
public struct ControlReply: Sendable, Hashable {
    public var id: UInt64
    public var ok: Bool
    public var body: [UInt8]
    /// Binary frames after the body (the file of an ORIGINAL).
    public var attachments: [[UInt8]]
    /// A PROGRESS reply (``ControlProgress`` as its body): the request is still being carried
    /// out, and its OK or ERROR comes later. Sent only to a request that asked for it.
    public var isProgress = false

    public init(id: UInt64, ok: Bool, body: [UInt8], attachments: [[UInt8]] = []) {
        self.id = id
        self.ok = ok
        self.body = body
        self.attachments = attachments
    }

    /// A PROGRESS reply to request `id`.
    public static func progress(id: UInt64, _ progress: ControlProgress) -> ControlReply {
        var reply = ControlReply(id: id, ok: true, body: (try? ControlCodec.encode(progress)) ?? [])
        reply.isProgress = true
        return reply
    }

    /// An ERROR reply.
    /// - Parameters:
    ///   - code: what a client switches on (``ControlErrorCode``); never the message's words.
    ///   - message: for people: what was wrong, naming the field or the id.
    ///   - reason: a finer code under `code` where it has one (``ControlErrorBody/reason``).
    public static func error(id: UInt64, code: ControlErrorCode, reason: String? = nil, _ message: String) -> ControlReply {
        ControlReply(id: id, ok: false, body: (try? ControlCodec.encode(ControlErrorBody(code: code, reason: reason, message: message))) ?? [])
    }

    public var frames: [[UInt8]] {
        [Array(ControlRequest.protocolName.utf8), id.bigEndianBytes, Array((isProgress ? "PROGRESS" : ok ? "OK" : "ERROR").utf8), body] + attachments
    }

    public init(frames: [[UInt8]]) throws(WireError) {
        guard let first = frames.first, first.elementsEqual(ControlRequest.protocolName.utf8) else {
            throw WireError("frame 0 must be the protocol \(ControlRequest.protocolName)")
        }
        var reader = FrameReader(frames, command: "reply", start: 1)
        id = try reader.uint64("request id")
        let verdict = try reader.text("verdict")
        guard verdict == "OK" || verdict == "ERROR" || verdict == "PROGRESS" else {
            throw WireError("reply: frame 2 must be OK, ERROR or PROGRESS, is '\(verdict.prefix(20))'")
        }
        ok = verdict != "ERROR"
        isProgress = verdict == "PROGRESS"
        body = try reader.bytes("body")
        attachments = Array(frames.dropFirst(reader.index))
    }
}

/// The body of a PROGRESS reply: how far a long request has got (`done` of `total` `unit`).
public struct ControlProgress: Codable, Sendable, Hashable {
    public var done: Int
    public var total: Int
    /// What is counted: `workouts` for DELETE.
    public var unit: String

    public init(done: Int, total: Int, unit: String) {
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// The body of an ERROR reply: `{"code": "not-found", "message": "…", "error": "…"}`.
///
/// `code` is what a client switches on, `message` is for people. `error` repeats the message for
/// clients built before codes travelled (they read only `error`, and a `code` other than
/// `expired` as none); a reply without `message` (from a coordinator of before) is read from
/// `error`, and one without a code, or with a code this client does not know, has `code` `nil`
/// (docs/PROTOCOL.md, "Errors").
public struct ControlErrorBody: Codable, Sendable, Hashable {
    /// `nil` only in a reply from a coordinator of before codes, or with a code of a newer one.
    public var code: ControlErrorCode?
    /// A finer code under ``code``, where the refusal has one: for ``ControlErrorCode/emptyWorkout``,
    /// what is missing (``EmptyWorkout/Code``: `no-points`, `one-point`). Absent otherwise.
    public var reason: String?
    public var message: String

    public init(code: ControlErrorCode?, reason: String? = nil, message: String) {
        self.code = code
        self.reason = reason
        self.message = message
    }

    private enum CodingKeys: String, CodingKey { case code, reason, message, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? container.decode(String.self, forKey: .error)
        code = try? container.decodeIfPresent(ControlErrorCode.self, forKey: .code)
        reason = try? container.decodeIfPresent(String.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(message, forKey: .message)
        try container.encode(message, forKey: .error)
    }
}

/// Why the coordinator refused a control request, on the wire as the `code` of an ERROR's body:
/// what a client switches on (the gateway maps each to an HTTP status, workctl to an exit status),
/// never the message's words. A new refusal gets a code here, and the compiler then lists the
/// places that map codes (`switch` without `default`).
public enum ControlErrorCode: String, Codable, Sendable, Hashable, CaseIterable {
    /// The request is malformed or out of range (a bad field, too many ids, a wrong command):
    /// sending it again does not help.
    case badRequest = "bad-request"
    /// What the request names is not there for this client: a workout id not in the index, or
    /// another owner's (answered exactly alike), or an original that is not kept.
    case notFound = "not-found"
    /// This client's role may not send this request (a worker key, a gateway without an owner).
    case forbidden
    /// Too many requests of this client in flight, or too many clients: not carried out; send it
    /// again once replies have come.
    case busy
    /// The request's deadline passed before it was carried out: nothing was done, nothing will be.
    case expired
    /// The coordinator failed to carry it out (an index error): its log says why.
    case `internal`
    /// IMPORT of a workout with no track and no figures (``WorkFeedModel/ImportedWorkout/emptiness``,
    /// docs/import.md "Nothing to show"): nothing stored; ``ControlErrorBody/reason`` says what is
    /// missing. Sending it again does not help.
    case emptyWorkout = "empty-workout"
    /// A change sent with an idempotency key its owner already sent with another request: not
    /// carried out (docs/gateway.md, "Idempotency-Key").
    case idempotencyKeyReused = "idempotency-key-reused"
}

/// An `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header) as WorkFeed takes it: 1 to
/// 255 printable ASCII characters, a UUID in practice.
public enum IdempotencyKey {
    public static func isValid(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// JSON as the control protocol writes it: sorted keys, ISO-8601 dates in UTC with their fraction
/// of a second (``ISO8601Time``).
public enum ControlCodec {
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
        return Array(try encoder.encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        return try decoder.decode(type, from: Data(bytes))
    }
}
