import CLibWebP
public import WorkFeedModel

/// Writes opaque 8-bit RGB pixels as a WebP picture through libwebp, with settings pinned so that
/// the same pixels always give the same bytes.
///
/// What a picture sent as WebP is encoded with is ``WebPEncoding/pictures`` (docs/rendering.md,
/// "WebP", measured against the PNG on the Heidelberg and Vaduz maps at @1x to @3x). The
/// settings name every field of libwebp's configuration that the choice depends on; the rest keep
/// libwebp's defaults for this libwebp, and its threads are off: a render thread is one core's
/// worth of work, as the PNG encode is.
///
/// It keeps nothing between pictures: libwebp allocates each picture's buffers and frees them.
///
/// ```swift
/// let webp = try rgb.withUnsafeBytes { pixels throws(WebPError) in
///     try WebPEncoder().encode(rgb: pixels, width: 1536, height: 1536)
/// }
/// ```
public struct WebPEncoder: Sendable {
    public let settings: WebPEncoding

    public init(settings: WebPEncoding = .pictures) {
        self.settings = settings
    }

    /// Encodes `rgb`, rows top to bottom without padding (3 bytes a pixel), as a WebP file
    /// (`RIFF`…`WEBP`, one `VP8 ` or `VP8L` chunk: no metadata, which every decoder reads).
    ///
    /// - Throws: ``WebPError`` when the sizes disagree or libwebp fails (out of memory, a size
    ///   over WebP's 16,383 pixels a side).
    public func encode(rgb: UnsafeRawBufferPointer, width: Int, height: Int) throws(WebPError) -> [UInt8] {
        try encode(pixels: rgb, channels: 3, width: width, height: height)
    }

    /// Encodes `pixels`, rows top to bottom without padding: 3 bytes a pixel (RGB) or 4 (RGBA,
    /// straight alpha, a see-through theme's picture), as a WebP file.
    ///
    /// - Throws: ``WebPError`` when the sizes disagree, `channels` is neither, or libwebp fails.
    public func encode(pixels: UnsafeRawBufferPointer, channels: Int, width: Int, height: Int) throws(WebPError) -> [UInt8] {
        guard channels == 3 || channels == 4 else { throw WebPError(.encode, "\(channels) channels: only 3 (RGB) and 4 (RGBA) are written") }
        guard width > 0, height > 0, width <= Int(WEBP_MAX_DIMENSION), height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebPError(.encode, "image size \(width)x\(height) out of range")
        }
        guard pixels.count == width * height * channels, let source = pixels.baseAddress else {
            throw WebPError(.encode, "expected \(width * height * channels) bytes of pixels, got \(pixels.count)")
        }
        var config = WebPConfig()
        guard wf_webp_config_init(&config) != 0 else { throw WebPError(.encode, "libwebp's encoder ABI differs from its header's") }
        config.lossless = settings.lossless ? 1 : 0
        config.quality = Float(settings.quality)
        config.method = Int32(settings.method)
        config.use_sharp_yuv = settings.sharpYUV ? 1 : 0
        config.thread_level = 0
        config.exact = 0
        guard WebPValidateConfig(&config) != 0 else { throw WebPError(.encode, "settings \(settings) are not valid for libwebp") }

        var picture = WebPPicture()
        guard wf_webp_picture_init(&picture) != 0 else { throw WebPError(.encode, "libwebp's encoder ABI differs from its header's") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(width)
        picture.height = Int32(height)
        // ARGB in: libwebp's encoder does the RGB to YUV conversion itself, sharp when asked.
        picture.use_argb = 1
        let rows = source.assumingMemoryBound(to: UInt8.self)
        let imported =
            channels == 4
            ? WebPPictureImportRGBA(&picture, rows, Int32(width * 4)) : WebPPictureImportRGB(&picture, rows, Int32(width * 3))
        guard imported != 0 else {
            throw WebPError(.encode, code: Int(picture.error_code.rawValue), "libwebp could not take \(width)x\(height) pixels")
        }
        var writer = WebPMemoryWriter()
        wf_webp_use_memory_writer(&picture, &writer)
        defer { WebPMemoryWriterClear(&writer) }
        guard WebPEncode(&config, &picture) != 0 else {
            throw WebPError(.encode, code: Int(picture.error_code.rawValue), "libwebp error \(picture.error_code.rawValue)")
        }
        guard let memory = writer.mem, writer.size > 0 else { throw WebPError(.encode, "libwebp wrote nothing") }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }
}

/// Reading WebP pictures back, for tests, the bench and checks.
public enum WebPCodec {
    /// Decodes a WebP picture into 8-bit RGBA.
    ///
    /// - Throws: ``WebPError`` for anything libwebp cannot read; malformed input never traps.
    public static func decode(_ webp: [UInt8]) throws(WebPError) -> DecodedImage {
        var width: Int32 = 0
        var height: Int32 = 0
        let read = webp.withUnsafeBufferPointer { bytes in WebPGetInfo(bytes.baseAddress, bytes.count, &width, &height) }
        guard read != 0, width > 0, height > 0, Int(width) <= PNGCodec.maximumPixels / Int(height) else {
            throw WebPError(.decode, "not a WebP picture libwebp reads (\(webp.count) bytes)")
        }
        var rgba = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let count = rgba.count
        let decoded = webp.withUnsafeBufferPointer { bytes in
            rgba.withUnsafeMutableBufferPointer { out in
                WebPDecodeRGBAInto(bytes.baseAddress, bytes.count, out.baseAddress, count, width * 4)
            }
        }
        guard decoded != nil else { throw WebPError(.decode, "libwebp could not decode \(width)x\(height) pixels") }
        return DecodedImage(width: Int(width), height: Int(height), rgba: rgba)
    }

    /// Whether `bytes` start as a WebP file does (`RIFF`, a length, `WEBP`).
    public static func isWebP(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        return head.count == 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
    }
}
