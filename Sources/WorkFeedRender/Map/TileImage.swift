import CTurboJPEG
import WorkFeedTiles

/// A raster tile's picture, decoded once to 8-bit RGBA (straight alpha), drawn under the vector
/// layers as the map's ground.
///
/// PNG goes through libpng's simplified API (``PNGCodec/decode(_:)``), JPEG through libjpeg-turbo's
/// TurboJPEG API with its accurate integer DCT, which gives the same pixels on every machine with
/// the same libjpeg-turbo. WebP is not read: such a tileset is refused when a worker starts.
struct TileImage: Sendable {
    let width: Int
    let height: Int
    /// `width * height * 4` bytes, rows top to bottom.
    let rgba: [UInt8]

    /// The largest side a tile may have: raster tiles are 256 or 512 pixels, @2x ones 1024.
    static let maximumSide = 2048

    /// The formats a raster tileset may hold, as MBTiles' `format` metadata names them.
    static let tilesetFormats: Set<String> = ["png", "jpg", "jpeg"]

    /// Decodes a tile's bytes.
    ///
    /// - Throws: ``TileError`` (`malformedTile`) naming what is wrong: the tile is then skipped
    ///   and counted as broken, like any other tile that cannot be read.
    init(bytes: [UInt8], format: TileFormat) throws(TileError) {
        switch format {
        case .png:
            let image: DecodedImage
            do { image = try PNGCodec.decode(bytes) } catch {
                throw TileError(.malformedTile, "not a readable PNG tile: \(error.message)")
            }
            (width, height, rgba) = (image.width, image.height, image.rgba)
        case .jpeg:
            (width, height, rgba) = try Self.decodeJPEG(bytes)
        case .webp:
            throw TileError(.malformedTile, "a WebP tile: WorkFeed reads PNG and JPEG raster tiles")
        case .vector:
            throw TileError(.malformedTile, "a vector tile where an image was expected")
        }
        guard width <= Self.maximumSide, height <= Self.maximumSide else {
            throw TileError(.malformedTile, "an image tile of \(width)x\(height) pixels, more than \(Self.maximumSide) on a side")
        }
    }

    private static func decodeJPEG(_ bytes: [UInt8]) throws(TileError) -> (Int, Int, [UInt8]) {
        guard let handle = tjInitDecompress() else {
            throw TileError(.malformedTile, "libjpeg-turbo could not start a decompressor")
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colourspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(handle, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colourspace)
        }
        guard header == 0 else { throw TileError(.malformedTile, "not a readable JPEG tile: \(message(handle))") }
        guard width > 0, height > 0, width <= Int32(maximumSide), height <= Int32(maximumSide) else {
            throw TileError(.malformedTile, "a JPEG tile of \(width)x\(height) pixels, more than \(maximumSide) on a side")
        }
        var rgba = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let flags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING
        let decoded = bytes.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), target.baseAddress, width, 0, height,
                    Int32(TJPF_RGBA.rawValue), flags)
            }
        }
        // A truncated or damaged JPEG is a warning to libjpeg-turbo (it would fill the rest grey);
        // here it is a broken tile, so that no half-drawn tile reaches a picture.
        guard decoded == 0 else { throw TileError(.malformedTile, "a damaged JPEG tile: \(message(handle))") }
        return (Int(width), Int(height), rgba)
    }

    private static func message(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "no reason given" }
        return String(cString: text)
    }

    /// About how much memory the picture holds, for the tile cache's budget.
    var estimatedBytes: Int { 64 + rgba.count }
}
