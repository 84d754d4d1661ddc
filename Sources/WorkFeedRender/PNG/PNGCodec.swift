import CLibPNG

/// PNG encoding and decoding through libpng's simplified API.
///
/// The simplified API reports failures as return codes, where the classic API longjmps out of
/// its error handler, which Swift cannot survive. It cannot write text chunks, so those are
/// spliced into the encoded stream afterwards (see `PNGCodec+Text.swift`).
public enum PNGCodec {
    /// How hard zlib works. Measured on route pictures in docs/rendering.md: `.fast` is what the
    /// renderer uses.
    public enum Compression: Sendable, Hashable, CaseIterable {
        /// `PNG_IMAGE_FLAG_FAST`: no row filters and a cheaper zlib setting.
        case fast
        /// libpng's defaults: adaptive row filters and zlib's default level.
        case standard
    }

    /// Largest picture either direction accepts, so that a corrupt header cannot ask for gigabytes.
    static let maximumPixels = 1 << 26

    /// Encodes 8-bit RGB rows (3 bytes a pixel, no padding) as an opaque PNG.
    ///
    /// - Parameters:
    ///   - text: `tEXt` chunks written right after `IHDR`, in this order. Keywords are 1-79
    ///     Latin-1 characters; values are Latin-1 without NUL.
    /// - Throws: ``PNGError`` when the sizes disagree, a text chunk cannot be written, or libpng fails.
    public static func encode(
        rgb pixels: [UInt8], width: Int, height: Int, text: [(keyword: String, value: String)] = [],
        compression: Compression = .fast
    ) throws(PNGError) -> [UInt8] {
        try encode(pixels: pixels, channels: 3, width: width, height: height, text: text, compression: compression)
    }

    /// Encodes 8-bit RGBA rows (4 bytes a pixel, straight alpha, no padding).
    ///
    /// - Throws: ``PNGError`` when the sizes disagree, a text chunk cannot be written, or libpng fails.
    public static func encode(
        rgba pixels: [UInt8], width: Int, height: Int, text: [(keyword: String, value: String)] = [],
        compression: Compression = .fast
    ) throws(PNGError) -> [UInt8] {
        try encode(pixels: pixels, channels: 4, width: width, height: height, text: text, compression: compression)
    }

    private static func encode(
        pixels: [UInt8], channels: Int, width: Int, height: Int, text: [(keyword: String, value: String)],
        compression: Compression
    ) throws(PNGError) -> [UInt8] {
        guard width > 0, height > 0, width <= maximumPixels / height else {
            throw PNGError(.encode, "image size \(width)x\(height) out of range")
        }
        guard pixels.count == width * height * channels else {
            throw PNGError(.encode, "expected \(width * height * channels) bytes of pixels, got \(pixels.count)")
        }
        let chunks = try textChunkBytes(text)
        var scratch: [UInt8] = []
        let result: Result<Int, PNGError> = pixels.withUnsafeBytes { raw in
            Result { () throws(PNGError) -> Int in
                try encode(
                    pixels: raw, channels: channels, width: width, height: height, compression: compression, into: &scratch)
            }
        }
        let count = try result.get()
        return insertingText(chunks, into: scratch[..<count])
    }

    /// Encodes into `output`, growing it when needed and reusing its storage otherwise.
    ///
    /// - Returns: how many bytes of `output` hold the PNG.
    /// - Throws: ``PNGError`` with libpng's message when libpng fails.
    static func encode(
        pixels: UnsafeRawBufferPointer, channels: Int, width: Int, height: Int, compression: Compression,
        into output: inout [UInt8]
    ) throws(PNGError) -> Int {
        let image = PNGImage(
            width: width, height: height,
            format: channels == 4 ? wf_png_format_rgba : wf_png_format_rgb,
            flags: compression == .fast ? wf_png_image_flag_fast : 0)
        let rowStride = png_int_32(truncatingIfNeeded: width * channels)
        // Stored (uncompressed) deflate blocks bound the output, so one generous buffer avoids a
        // second compression run.
        let bound = pixels.count + height + pixels.count / 64 + 1024
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        for _ in 0..<2 {
            var bytes = png_alloc_size_t(output.count)
            let ok = output.withUnsafeMutableBytes { memory in
                png_image_write_to_memory(image.pointer, memory.baseAddress, &bytes, 0, pixels.baseAddress, rowStride, nil)
            }
            if ok != 0 { return Int(bytes) }
            guard bytes > output.count else { break }
            // libpng reports the size it needed when the buffer was too small.
            output = [UInt8](repeating: 0, count: Int(bytes))
            image.pointer.pointee.warning_or_error = 0
        }
        throw PNGError(.encode, image.message)
    }

    /// Decodes any PNG libpng reads into 8-bit RGBA.
    ///
    /// - Throws: ``PNGError`` for anything that is not a readable PNG; malformed input never traps.
    public static func decode(_ png: [UInt8]) throws(PNGError) -> DecodedImage {
        guard png.count >= 8 else { throw PNGError(.decode, "too short to be a PNG (\(png.count) bytes)") }
        let image = PNGImage()
        let began = png.withUnsafeBytes { raw in
            png_image_begin_read_from_memory(image.pointer, raw.baseAddress, raw.count)
        }
        guard began != 0 else { throw PNGError(.decode, image.message) }
        let width = image.width
        let height = image.height
        guard width > 0, height > 0, width <= maximumPixels / height else {
            throw PNGError(.decode, "image size \(width)x\(height) out of range")
        }
        image.pointer.pointee.format = wf_png_format_rgba
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let finished = rgba.withUnsafeMutableBytes { buffer in
            png_image_finish_read(image.pointer, nil, buffer.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw PNGError(.decode, image.message) }
        return DecodedImage(width: width, height: height, rgba: rgba)
    }
}
