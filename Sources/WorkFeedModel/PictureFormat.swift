/// The file format a picture's bytes are sent in: `png`, the default and the one the cache layout
/// and `workctl` name, or `webp`, a third of the bytes at @2x and @3x for phones (iOS 14 and
/// later, every Android; docs/rendering.md, "WebP").
///
/// A format is one place: its wire and URL name (the raw value), its HTTP `Content-Type`, its file
/// extension, how its bytes are encoded (``encoding``) and how its content key follows from the
/// picture's cache key (``contentKey(pictureKey:)``). Each `switch` here is exhaustive, so a new
/// format makes the compiler list what it must say.
public enum PictureFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case png
    case webp

    /// What a picture is sent in when nothing asks for another format.
    public static let standard = PictureFormat.png

    /// The media type the gateway answers with (`Content-Type`) and reads in `Accept`.
    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// The file name extension, without the dot: `/v1/pictures/<key>.<extension>`, `keys/…/<key>.<extension>`.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// How the bytes are written, as the content key holds it; `nil` for the PNG, whose encoding
    /// (`PixelDeflate`) is part of the renderer's version, as it always was.
    public var encoding: WebPEncoding? {
        switch self {
        case .png: nil
        case .webp: .pictures
        }
    }

    /// The key naming this format's bytes of the picture whose cache key is `pictureKey`: the PNG's
    /// is the cache key itself (every URL and name of today stays), another format's the SHA-256 of
    /// the format, its encoding and the cache key. The same picture in the same encoding is the
    /// same bytes (the encoders are deterministic), so this key names exactly one file's bytes,
    /// forever, as the cache key names the PNG's; and it follows from the cache key alone, so a
    /// reader that knows the PNG's key finds the WebP without the index.
    public func contentKey(pictureKey: String) -> String {
        guard let encoding else { return pictureKey }
        var hasher = SHA256()
        hasher.update("workfeed-content-key-v1\nformat=\(rawValue)\nencoding=\(encoding.identity)\npicture=\(pictureKey)")
        return hasher.finalize().hexString
    }

    /// The names, for help and for a 400 that says what is allowed: `png, webp`.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    public var description: String { rawValue }
}

/// How a lossy or lossless WebP picture is encoded: every setting of libwebp's encoder that
/// changes the bytes, pinned (threads off, as the PNG's encode is on one thread). The renderer's
/// `WebPEncoder` takes it as it is; the content key holds its ``identity``.
public struct WebPEncoding: Sendable, Hashable, CustomStringConvertible {
    /// Lossless (VP8L) instead of lossy (VP8).
    public var lossless: Bool
    /// 0...100: lossy, the quality; lossless, the effort.
    public var quality: Int
    /// 0 (fastest) ... 6 (smallest).
    public var method: Int
    /// libwebp's iterative RGB to YUV conversion (sharper coloured edges, slower; lossy only).
    public var sharpYUV: Bool

    public init(lossless: Bool = false, quality: Int, method: Int, sharpYUV: Bool = false) {
        self.lossless = lossless
        self.quality = quality
        self.method = method
        self.sharpYUV = sharpYUV
    }

    /// What WebP pictures are sent with: chosen by measurement (docs/rendering.md, "WebP").
    public static let pictures = WebPEncoding(quality: 75, method: 0)

    /// For example `lossy q75 m0`, or `lossless q0 m0`, with ` sharp-yuv` when it is on.
    public var identity: String {
        (lossless ? "lossless" : "lossy") + " q\(quality) m\(method)" + (sharpYUV ? " sharp-yuv" : "")
    }

    public var description: String { identity }
}
