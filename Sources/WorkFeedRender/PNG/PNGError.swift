/// A PNG could not be written or read.
///
/// libpng's simplified API reports failures as a return code plus a short message in the image
/// structure; both are captured at the call that failed, so the error says what libpng said.
public struct PNGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done when it failed.
    public enum Operation: String, Sendable, Hashable {
        case encode
        case decode
        case text
    }

    public var operation: Operation
    /// libpng's message, or ours when the failure was found before libpng was called.
    public var message: String

    public init(_ operation: Operation, _ message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "PNG \(operation.rawValue) failed: \(message)" }
}
