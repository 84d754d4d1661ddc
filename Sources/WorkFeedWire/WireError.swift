/// A message that does not follow docs/PROTOCOL.md. Says which frame is wrong and how, so that the
/// error sent back (or logged) lets the sender's author fix it.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads the frames of one message in order, with errors that name the frame.
struct FrameReader {
    private let frames: [[UInt8]]
    private(set) var index: Int
    let command: String

    init(_ frames: [[UInt8]], command: String, start: Int) {
        self.frames = frames
        self.command = command
        self.index = start
    }

    var remaining: Int { frames.count - index }

    mutating func bytes(_ name: String) throws(WireError) -> [UInt8] {
        guard index < frames.count else {
            throw WireError("\(command): missing frame \(index) (\(name)); the message has \(frames.count) frames")
        }
        defer { index += 1 }
        return frames[index]
    }

    mutating func text(_ name: String, maximumBytes: Int = .max) throws(WireError) -> String {
        let raw = try bytes(name)
        guard raw.count <= maximumBytes else {
            throw WireError("\(command): frame \(index - 1) (\(name)) is \(raw.count) bytes, at most \(maximumBytes)")
        }
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw WireError("\(command): frame \(index - 1) (\(name)) is not UTF-8")
        }
        return text
    }

    mutating func uint64(_ name: String) throws(WireError) -> UInt64 {
        let raw = try bytes(name)
        guard raw.count == 8 else { throw WireError("\(command): frame \(index - 1) (\(name)) must be 8 bytes, is \(raw.count)") }
        return raw.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint32(_ name: String) throws(WireError) -> UInt32 {
        let raw = try bytes(name)
        guard raw.count == 4 else { throw WireError("\(command): frame \(index - 1) (\(name)) must be 4 bytes, is \(raw.count)") }
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }

    func end() throws(WireError) {
        guard index == frames.count else {
            throw WireError("\(command): \(frames.count - index) unexpected frame(s) after frame \(index - 1)")
        }
    }
}

extension FixedWidthInteger {
    /// Network byte order, as every integer frame is sent.
    var bigEndianBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) }
    }
}
