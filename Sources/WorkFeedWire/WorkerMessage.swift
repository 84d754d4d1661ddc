public import WorkFeedModel

/// A job as the coordinator hands it to a worker: everything needed to draw the picture.
public struct JobAssignment: Sendable, Hashable {
    /// Identifies this lease of the job; the worker's report quotes it, and a report for a lease
    /// that is no longer current is ignored.
    public var lease: UInt64
    public var workoutID: WorkoutID
    /// Hash of everything the picture depends on; written into the PNG.
    public var cacheKey: String
    /// The picture spec as JSON (docs/PROTOCOL.md); the same bytes for every job of one kind,
    /// theme and scale, so both sides cache its encoding.
    public var spec: [UInt8]
    /// The route series, `WFR1` (docs/series-format.md), as stored in the index.
    public var route: [UInt8]
    /// The heart-rate series, `WFH1`, as stored in the index.
    public var heartRate: [UInt8]

    public init(lease: UInt64, workoutID: WorkoutID, cacheKey: String, spec: [UInt8], route: [UInt8], heartRate: [UInt8]) {
        self.lease = lease
        self.workoutID = workoutID
        self.cacheKey = cacheKey
        self.spec = spec
        self.route = route
        self.heartRate = heartRate
    }
}

/// How a job ended on the worker.
public enum JobOutcome: String, Sendable, Hashable, CaseIterable {
    /// The PNG is in the cache.
    case generated
    /// It cannot succeed with these inputs (no route, no heart-rate samples, ...).
    case failedNoRetry = "failed-no-retry"
    /// It may succeed later (the cache write failed, say); the coordinator retries with back-off.
    case failedRetry = "failed-retry"
}

/// A worker's report on one lease.
public struct JobReport: Sendable, Hashable {
    public var lease: UInt64
    public var outcome: JobOutcome
    /// The failure reason, or the cache key written for `generated`.
    public var detail: String
    public var renderMicroseconds: UInt64
    /// How much of a generated picture the basemap covered (`none` for failures).
    public var map: MapCoverage
    /// For a failure: its stable code (``FailureCode``); `nil` from a worker that sends none.
    public var code: FailureCode?

    /// - Parameter detail: shortened to ``WorkerMessage/maximumTextBytes`` (at a character
    ///   boundary) when longer, as the coordinator refuses longer ones.
    public init(
        lease: UInt64, outcome: JobOutcome, detail: String, renderMicroseconds: UInt64, map: MapCoverage = .none, code: FailureCode? = nil
    ) {
        self.code = code
        self.lease = lease
        self.outcome = outcome
        self.detail = detail.utf8.count <= WorkerMessage.maximumTextBytes ? detail : detail.prefixFitting(bytes: WorkerMessage.maximumTextBytes)
        self.renderMicroseconds = renderMicroseconds
        self.map = map
    }
}

/// Why the coordinator refused a worker's READY (frame 3 of its DISCONNECT): a worker tells a
/// refusal that no reconnection can change from one that passes.
public enum DisconnectCode: String, Sendable, Hashable, CaseIterable {
    /// The worker draws on another basemap than the coordinator's (`basemap.*` differ).
    case basemapDiffers = "basemap-differs"
    /// The worker's renderer version is not the coordinator's (another build).
    case rendererDiffers = "renderer-differs"
    /// The worker is set aside for a while (`workers.set_aside_seconds`).
    case setAside = "set-aside"

    /// Whether only a change of the worker's configuration or build can end the refusal: the
    /// worker stops (exit 78) after a few such refusals in a row instead of retrying for ever.
    public var needsAnotherConfiguration: Bool {
        switch self {
        case .basemapDiffers, .rendererDiffers: true
        case .setAside: false
        }
    }
}

/// The messages between coordinator and workers (docs/PROTOCOL.md, "Worker protocol").
/// Every message starts with the protocol frame `WFW1` and a command frame.
public enum WorkerMessage: Sendable, Hashable {
    /// Worker → coordinator: ready for up to `capacity` jobs at once, drawing maps on the basemap
    /// `basemap` (its ``BasemapIdentity`` hash; empty without tilesets). `instance` (16 lower-case
    /// hex digits, drawn once per worker process; empty from older workers) is the same on every
    /// reconnection, whose socket identity is new: the coordinator replaces the entry of the same
    /// name and instance instead of keeping both.
    case ready(capacity: Int, rendererVersion: Int, name: String, basemap: String, instance: String = "")
    /// Coordinator → worker.
    case job(JobAssignment)
    /// Worker → coordinator.
    case status(JobReport)
    /// Both ways, when nothing else was sent for a heartbeat interval.
    case heartbeat
    /// Both ways: the sender is going away (or, from the coordinator, does not know the worker).
    /// From the coordinator, `code` says why when the worker was refused (``DisconnectCode``).
    case disconnect(reason: String, code: DisconnectCode? = nil)
    /// Coordinator → worker: the worker's last message was malformed.
    case error(String)

    public static let protocolName = "WFW1"
    /// Messages larger than this are refused by the sockets (ZMQ_MAXMSGSIZE).
    public static let maximumMessageSize: Int64 = 256 << 20
    /// The longest worker name READY may carry (UTF-8 bytes).
    public static let maximumNameBytes = 256
    /// The longest STATUS detail, DISCONNECT reason or ERROR message (UTF-8 bytes); a worker
    /// shortens its reasons to fit.
    public static let maximumTextBytes = 4_096

    /// Frames made once: every message starts with these.
    static let protocolFrame = Array(protocolName.utf8)
    private static let commandFrames = ["READY", "JOB", "STATUS", "HEARTBEAT", "DISCONNECT", "ERROR"].map { Array($0.utf8) }

    private var commandFrame: [UInt8] {
        switch self {
        case .ready: Self.commandFrames[0]
        case .job: Self.commandFrames[1]
        case .status: Self.commandFrames[2]
        case .heartbeat: Self.commandFrames[3]
        case .disconnect: Self.commandFrames[4]
        case .error: Self.commandFrames[5]
        }
    }

    public var command: String {
        switch self {
        case .ready: "READY"
        case .job: "JOB"
        case .status: "STATUS"
        case .heartbeat: "HEARTBEAT"
        case .disconnect: "DISCONNECT"
        case .error: "ERROR"
        }
    }

    /// The frames to send (without any routing envelope).
    public var frames: [[UInt8]] {
        var frames: [[UInt8]] = [Self.protocolFrame, commandFrame]
        switch self {
        case .ready(let capacity, let version, let name, let basemap, let instance):
            frames += [
                UInt32(clamping: capacity).bigEndianBytes, UInt32(clamping: version).bigEndianBytes, Array(name.utf8),
                Array(basemap.utf8),
            ]
            if !instance.isEmpty { frames.append(Array(instance.utf8)) }
        case .job(let job):
            frames += [
                job.lease.bigEndianBytes, job.workoutID.utf8, Array(job.cacheKey.utf8),
                job.spec, job.route, job.heartRate,
            ]
        case .status(let report):
            frames += [
                report.lease.bigEndianBytes, Array(report.outcome.rawValue.utf8), Array(report.detail.utf8),
                report.renderMicroseconds.bigEndianBytes, Array(report.map.rawValue.utf8),
            ]
            if let code = report.code { frames.append(Array(code.rawValue.utf8)) }
        case .heartbeat:
            break
        case .disconnect(let reason, let code):
            frames.append(Array(reason.utf8))
            if let code { frames.append(Array(code.rawValue.utf8)) }
        case .error(let reason):
            frames.append(Array(reason.utf8))
        }
        return frames
    }

    /// Parses a message's frames (after any routing envelope).
    /// - Throws: ``WireError`` naming the frame that is wrong.
    public init(frames: [[UInt8]]) throws(WireError) {
        guard let first = frames.first else { throw WireError("empty message") }
        guard first.elementsEqual(Self.protocolName.utf8) else {
            let shown = String(decoding: first.prefix(16), as: UTF8.self)
            throw WireError("frame 0 must be the protocol \(Self.protocolName), got '\(shown)' (\(first.count) bytes)")
        }
        guard frames.count >= 2, let command = String(validating: frames[1], as: UTF8.self) else {
            throw WireError("frame 1 must be a command (READY, JOB, STATUS, HEARTBEAT, DISCONNECT, ERROR)")
        }
        var reader = FrameReader(frames, command: command, start: 2)
        switch command {
        case "READY":
            let capacity = try reader.uint32("capacity")
            let version = try reader.uint32("renderer version")
            let name = try reader.text("name", maximumBytes: Self.maximumNameBytes)
            // Workers before renderer version 2 send no basemap frame; their version refuses them.
            let basemap = reader.remaining > 0 ? try reader.text("basemap", maximumBytes: 64) : ""
            guard capacity > 0 && capacity <= 1024 else { throw WireError("READY: capacity must be 1...1024, is \(capacity)") }
            guard !name.isEmpty else { throw WireError("READY: frame 4 (name) is empty") }
            // Names end up in logs and on operators' terminals.
            guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
            else {
                throw WireError("READY: frame 4 (name) contains control or format characters")
            }
            guard basemap.isEmpty || basemap.isLowerHex(count: 64) else {
                throw WireError("READY: frame 5 (basemap) must be empty or 64 lower-case hex digits")
            }
            // Frame 6, the worker process's instance, is optional: workers before it send none.
            let instance = reader.remaining > 0 ? try reader.text("instance", maximumBytes: 16) : ""
            guard instance.isEmpty || instance.isLowerHex(count: 16) else {
                throw WireError("READY: frame 6 (instance) must be empty or 16 lower-case hex digits")
            }
            self = .ready(capacity: Int(capacity), rendererVersion: Int(version), name: name, basemap: basemap, instance: instance)
        case "JOB":
            let lease = try reader.uint64("lease")
            let idText = try reader.text("workout id")
            guard let id = WorkoutID(idText) else { throw WireError("JOB: frame 3 (workout id) is not a UUID: '\(idText.prefix(40))'") }
            self = .job(
                JobAssignment(
                    lease: lease, workoutID: id, cacheKey: try reader.text("cache key"), spec: try reader.bytes("spec"),
                    route: try reader.bytes("route"), heartRate: try reader.bytes("heart rate")))
        case "STATUS":
            let lease = try reader.uint64("lease")
            let outcomeText = try reader.text("outcome")
            guard let outcome = JobOutcome(rawValue: outcomeText) else {
                throw WireError("STATUS: frame 3 (outcome) must be generated, failed-no-retry or failed-retry, is '\(outcomeText.prefix(40))'")
            }
            let detail = try reader.text("detail", maximumBytes: Self.maximumTextBytes)
            guard outcome != .generated || detail.isLowerHex(count: 64) else {
                throw WireError("STATUS: frame 4 (detail) of a generated picture must be its cache key, 64 lower-case hex digits")
            }
            let micros = try reader.uint64("render microseconds")
            let mapText = try reader.text("map", maximumBytes: 16)
            guard let map = MapCoverage(rawValue: mapText) else {
                throw WireError("STATUS: frame 6 (map) must be full, partial or none, is '\(mapText.prefix(40))'")
            }
            // Frame 7, the failure's code, is optional: workers built before codes existed send none.
            var code: FailureCode?
            if reader.remaining > 0 {
                let text = try reader.text("code", maximumBytes: 64)
                guard FailureCode.isWellFormed(text) else {
                    throw WireError("STATUS: frame 7 (code) must be 1 to 64 lower-case letters, digits and '-'")
                }
                code = FailureCode(text)
            }
            self = .status(JobReport(lease: lease, outcome: outcome, detail: detail, renderMicroseconds: micros, map: map, code: code))
        case "HEARTBEAT":
            self = .heartbeat
        case "DISCONNECT":
            let reason = reader.remaining > 0 ? try reader.text("reason", maximumBytes: Self.maximumTextBytes) : ""
            // Frame 3, the refusal's code, is optional; a code this version does not know is no code.
            let code = reader.remaining > 0 ? DisconnectCode(rawValue: try reader.text("code", maximumBytes: 64)) : nil
            self = .disconnect(reason: reason, code: code)
        case "ERROR":
            self = .error(try reader.text("message", maximumBytes: Self.maximumTextBytes))
        default:
            throw WireError("unknown command '\(command.prefix(40))' (READY, JOB, STATUS, HEARTBEAT, DISCONNECT, ERROR)")
        }
        try reader.end()
    }
}

extension String {
    /// The longest prefix, whole characters only, of at most `bytes` UTF-8 bytes.
    func prefixFitting(bytes: Int) -> String {
        var used = 0
        var end = startIndex
        for index in indices {
            let size = self[index].utf8.count
            guard used + size <= bytes else { break }
            used += size
            end = self.index(after: index)
        }
        return String(self[..<end])
    }

    /// Whether this is exactly `count` lower-case hexadecimal digits (a SHA-256 in hex, say).
    func isLowerHex(count: Int) -> Bool {
        utf8.count == count && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
