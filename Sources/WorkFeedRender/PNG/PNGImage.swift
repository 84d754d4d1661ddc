import CLibPNG

/// One libpng simplified-API image control structure with a single owner.
///
/// libpng allocates internal state behind `opaque` during a read or write; `png_image_free`
/// releases it on every path, including early exits on error, when this value goes away.
/// The structure lives on the heap so that its address stays stable while libpng holds it.
struct PNGImage: ~Copyable {
    let pointer: UnsafeMutablePointer<png_image>

    init(width: Int = 0, height: Int = 0, format: png_uint_32 = 0, flags: png_uint_32 = 0) {
        pointer = .allocate(capacity: 1)
        var image = png_image()
        image.version = wf_png_image_version
        image.width = png_uint_32(truncatingIfNeeded: width)
        image.height = png_uint_32(truncatingIfNeeded: height)
        image.format = format
        image.flags = flags
        pointer.initialize(to: image)
    }

    deinit {
        png_image_free(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }

    /// libpng's message for the last failure, or a fallback when it left none.
    var message: String {
        withUnsafeBytes(of: pointer.pointee.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? "libpng reported no message" : String(decoding: bytes, as: UTF8.self)
        }
    }
}
