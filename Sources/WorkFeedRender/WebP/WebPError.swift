/// A WebP picture could not be written or read.
///
/// libwebp reports an encoding failure as a `WebPEncodingError` code in the picture it was given,
/// and a decoding failure as a null result; both are captured at the call that failed.
public struct WebPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done when it failed.
    public enum Operation: String, Sendable, Hashable {
        case encode
        case decode
    }

    public var operation: Operation
    /// libwebp's error code (`VP8_ENC_ERROR_…`, as a number) where it gave one, else 0.
    public var code: Int
    public var message: String

    public init(_ operation: Operation, code: Int = 0, _ message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { "WebP \(operation.rawValue) failed: \(message)" }
}
