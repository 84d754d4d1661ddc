import CLibDeflate

/// Writes 8-bit RGB or RGBA PNGs itself, compressing with its own ``PixelDeflate`` (or libdeflate),
/// and reuses its buffers.
///
/// Pictures are compressed by ``PixelDeflate``, which tries copies at the neighbouring pixels
/// only: on map pictures it took 26-37 % less time than libdeflate's fastest level at @3x (4-11 %
/// at @1x) for 0-5 % more bytes (docs/rendering.md, "PNG"). libdeflate stays for tests and tools.
///
/// libpng's simplified writer has one speed setting (`PNG_IMAGE_FLAG_FAST`: no row filters, zlib
/// level 3), and on busy 512 x 512 map pictures it took 6-11 ms, most of a whole picture's 10 ms
/// budget. A picture needs only a few simple chunks (`IHDR`, `tEXt`, `sRGB`, `IDAT`, `IEND`), so
/// they are written here, and the rows go to libdeflate in one call, which compresses a whole
/// buffer at once: on the same pictures level 1 took 2.6-3.8 ms, for 5-7 % more bytes than libpng.
///
/// Same pixels, same compression (and, for libdeflate, the same libdeflate): same bytes. Nothing here reads the time, a random
/// source or another thread. Not thread-safe: one encoder per render thread; each ``Renderer``
/// owns one.
///
/// ```swift
/// let encoder = PNGEncoder()
/// let png = try rgb.withUnsafeBytes { pixels throws(PNGError) in
///     try encoder.encode(pixels: pixels, channels: 3, width: 512, height: 512)
/// }
/// ```
public final class PNGEncoder {
    /// How the rows are compressed.
    public enum Compression: Sendable, Equatable {
        /// Matches at the neighbouring pixels only, Huffman codes per block (``PixelDeflate``):
        /// what pictures are written with (docs/rendering.md, "PNG").
        case neighbours
        /// libdeflate at `level`, clamped to its 0...12.
        case libdeflate(level: Int32)
    }

    /// libdeflate's fastest level. On map pictures drawn from real vector tiles (Heidelberg z14,
    /// San Francisco z15), levels 2-6 saved 3-8 % of the bytes for 30-120 % more time.
    public static let defaultLevel: Int32 = 1

    public let compression: Compression
    private let engine: Engine
    /// The zlib input: per row, its filter-type byte and its bytes.
    private var filtered = ScratchBytes()
    /// The compressor writes here, sized to its worst-case bound so that one call always suffices.
    private var compressed = ScratchBytes()

    /// What compresses: ours, or libdeflate's compressor, `nil` when libdeflate could not allocate
    /// it (``encode(pixels:channels:width:height:text:)`` then throws rather than the
    /// initializer, so that owners like ``Renderer`` stay simple).
    private enum Engine {
        case neighbours(PixelDeflate)
        case libdeflate(OpaquePointer?, level: Int32)
    }

    public init(compression: Compression = .neighbours) {
        switch compression {
        case .neighbours:
            self.compression = compression
            engine = .neighbours(PixelDeflate())
        case .libdeflate(let level):
            let clamped = min(max(level, 0), 12)
            self.compression = .libdeflate(level: clamped)
            engine = .libdeflate(libdeflate_alloc_compressor(clamped), level: clamped)
        }
    }

    /// libdeflate at `level` (clamped to 0...12).
    public convenience init(level: Int32) {
        self.init(compression: .libdeflate(level: level))
    }

    deinit {
        if case .libdeflate(let compressor?, _) = engine { libdeflate_free_compressor(compressor) }
    }

    /// Encodes `pixels`, rows top to bottom without padding, as a PNG.
    ///
    /// - Parameters:
    ///   - channels: 3 for opaque RGB (colour type 2), 4 for RGBA with straight alpha (type 6).
    ///   - text: `tEXt` chunks written right after `IHDR`, in this order; the rules are those of
    ///     ``PNGCodec/encode(rgb:width:height:text:compression:)``.
    /// - Throws: ``PNGError`` when the sizes disagree, a text chunk cannot be written, or
    ///   libdeflate fails.
    public func encode(
        pixels: UnsafeRawBufferPointer, channels: Int, width: Int, height: Int,
        text: [(keyword: String, value: String)] = []
    ) throws(PNGError) -> [UInt8] {
        let chunks = try PNGCodec.textChunkBytes(text)
        return try encode(pixels: pixels, channels: channels, width: width, height: height, textChunks: chunks)
    }

    /// Encodes with `tEXt` chunks already built by ``PNGCodec/textChunkBytes(_:)``, so that a
    /// caller can reject unwritable text before doing any other work.
    ///
    /// - Throws: ``PNGError`` when the sizes disagree or libdeflate fails.
    func encode(
        pixels: UnsafeRawBufferPointer, channels: Int, width: Int, height: Int, textChunks: [UInt8]
    ) throws(PNGError) -> [UInt8] {
        guard channels == 3 || channels == 4 else {
            throw PNGError(.encode, "\(channels) channels: only 3 (RGB) and 4 (RGBA) are written")
        }
        guard width > 0, height > 0, width <= PNGCodec.maximumPixels / height else {
            throw PNGError(.encode, "image size \(width)x\(height) out of range")
        }
        let rowBytes = width * channels
        guard pixels.count == rowBytes * height, let source = pixels.baseAddress else {
            throw PNGError(.encode, "expected \(rowBytes * height) bytes of pixels, got \(pixels.count)")
        }
        let filteredCount = height * (rowBytes + 1)
        let input = filtered.reserve(filteredCount)
        Self.copyRows(source.assumingMemoryBound(to: UInt8.self), into: input, rowBytes: rowBytes, height: height)

        let bound: Int
        let size: Int
        switch engine {
        case .neighbours(let neighbours):
            bound = PixelDeflate.bound(filteredCount)
            size = neighbours.compress(
                input, count: filteredCount, rowBytes: rowBytes + 1, pixelBytes: channels, into: compressed.reserve(bound))
        case .libdeflate(let compressor, let level):
            guard let compressor else {
                throw PNGError(.encode, "libdeflate could not allocate a level-\(level) compressor")
            }
            bound = libdeflate_zlib_compress_bound(compressor, filteredCount)
            size = libdeflate_zlib_compress(compressor, input, filteredCount, compressed.reserve(bound), bound)
        }
        let output = compressed.reserve(bound)
        // A chunk's length is at most 2^31 - 1; 2^26 pixels of RGBA cannot get there, but a
        // length is never written unchecked.
        guard size > 0, size <= Int(Int32.max) else {
            throw PNGError(.encode, "libdeflate could not compress \(filteredCount) bytes into \(bound)")
        }

        // Signature, IHDR, the text, sRGB, IDAT, IEND: each chunk has 12 bytes of framing.
        let total = 8 + (12 + 13) + textChunks.count + (12 + 1) + (12 + size) + 12
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var writer = ChunkWriter(base)
            writer.append(PNGCodec.signature)
            writer.chunk("IHDR") { writer in
                writer.appendBigEndian(UInt32(width))
                writer.appendBigEndian(UInt32(height))
                // Bit depth 8, colour type, compression 0 (deflate), filter method 0, no interlace.
                writer.append([8, channels == 4 ? 6 : 2, 0, 0, 0])
            }
            writer.append(textChunks)
            // What libpng's simplified writer said of the same pixels: they are sRGB, rendering
            // intent perceptual, so viewers treat the colours exactly as before.
            writer.chunk("sRGB") { writer in writer.append([0]) }
            writer.chunk("IDAT") { writer in writer.append(UnsafeRawBufferPointer(start: output, count: size)) }
            writer.chunk("IEND") { _ in }
            initialized = writer.count
        }
    }

    /// Writes each row behind its filter-type byte 0 (None).
    ///
    /// None is the filter these pictures want: flat areas repeat whole pixels, which deflate finds
    /// as matches three or four bytes back, and the filters that predict from neighbours (Sub,
    /// Up, Average, Paeth, or libpng's per-row choice among them) made every map picture measured
    /// 15-32 % larger and 15-40 % slower to encode at level 1.
    private static func copyRows(
        _ source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, rowBytes: Int, height: Int
    ) {
        for y in 0..<height {
            let target = out + y * (rowBytes + 1)
            target[0] = 0
            (target + 1).update(from: source + y * rowBytes, count: rowBytes)
        }
    }
}

/// Bytes a ``PNGEncoder`` keeps between pictures; reallocated only to grow.
private struct ScratchBytes: ~Copyable {
    private var storage = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    init() {}

    deinit { storage.deallocate() }

    /// At least `count` bytes, uninitialized or left over from the last picture.
    mutating func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if storage.count < count || storage.baseAddress == nil {
            storage.deallocate()
            storage = .allocate(capacity: max(count, 1))
        }
        // Just allocated or reused with count >= 1, so the address exists.
        return storage.baseAddress.unsafelyUnwrapped
    }
}

/// Appends to an output buffer the encoder sized exactly beforehand.
private struct ChunkWriter {
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) {
        self.base = base
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func appendBigEndian(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { append($0) }
    }

    /// Length, type, what `body` appends, and the CRC-32 of type and body.
    mutating func chunk(_ type: StaticString, _ body: (inout ChunkWriter) -> Void) {
        let lengthAt = count
        appendBigEndian(0)
        let typeAt = count
        append(UnsafeRawBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount))
        body(&self)
        let length = UInt32(count - typeAt - 4)
        withUnsafeBytes(of: length.bigEndian) { bytes in
            UnsafeMutableRawPointer(base + lengthAt).copyMemory(from: bytes.baseAddress.unsafelyUnwrapped, byteCount: 4)
        }
        appendBigEndian(libdeflate_crc32(0, base + typeAt, count - typeAt))
    }
}
