/// A font file could not be opened for drawing text.
///
/// The path is always part of the message: a worker started with a wrong font path (or without
/// Debian's `fonts-dejavu-core`) should say which file it looked for.
public struct FontError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The file is missing or cannot be read.
        case cannotOpen
        /// The file is not a font FreeType reads, or not an outline font that scales to any size.
        case notAFont
        /// FreeType failed in itself, for example out of memory.
        case freetype
    }

    public var code: Code
    /// The font file's path, as given.
    public var path: String
    public var message: String
    /// FreeType's error code, when FreeType reported the failure.
    public var freetypeError: Int32?

    public init(_ code: Code, path: String, _ message: String, freetypeError: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.freetypeError = freetypeError
    }

    public var description: String { "font \"\(path)\": \(message)" }
}
