import Foundation
import Logging
import WorkFeedModel
import WorkFeedRender
import WorkFeedStyle
import WorkFeedTiles

/// The "formats" group: the map group's pictures (route, both areas, the asked themes and
/// scales), each drawn once, then its pixels encoded as the PNG the renderer writes
/// (``PNGEncoder``, `PixelDeflate`) and as WebP with each candidate setting, in alternated rounds:
/// thread CPU time a picture (median), bytes, and the decoded WebP's PSNR against the PNG's
/// pixels. With `--map-out` it writes each WebP and a PNG of its decoded pixels, to look at.
enum FormatBench {
    /// The candidates measured for docs/rendering.md, "WebP"; the chosen one is
    /// ``WebPEncoding/pictures``.
    static let candidates: [WebPEncoding] = [
        WebPEncoding(lossless: true, quality: 0, method: 0),
        WebPEncoding(lossless: true, quality: 25, method: 1),
        WebPEncoding(quality: 75, method: 0),
        WebPEncoding(quality: 82, method: 0),
        WebPEncoding(quality: 90, method: 0),
        WebPEncoding(quality: 75, method: 2),
        WebPEncoding(quality: 82, method: 2),
        WebPEncoding(quality: 90, method: 2),
        WebPEncoding(quality: 82, method: 4),
        WebPEncoding(quality: 82, method: 2, sharpYUV: true),
    ]

    static func run(options: BenchOptions) throws {
        print(
            "## formats (route pictures 512x512 points on the map: thread CPU ms to encode a picture's pixels, "
                + "median of \(options.runs) alternated rounds after 2 warm-ups)")
        if let directory = options.mapOut { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        print("area           theme scale  format                         cpu ms  /png   bytes      /png   PSNR dB  largest  px>32  same bytes")
        for area in try MapBench.areas() {
            let basemap = try Basemap(tilesetLocations: [area.tileset], logger: Logger(label: "bench"))
            let renderer = Renderer(basemap: basemap)
            for theme in options.themes.compactMap(Theme.init(rawValue:)) {
                guard let shipped = ThemeStyle.shipped[theme] else { throw BenchError("--themes: no shipped theme \(theme)") }
                for scale in options.scales {
                    let spec = PictureSpec(
                        kind: .route, theme: theme, width: 512, height: 512, scale: scale, style: shipped.route, heatmap: .standard,
                        map: shipped.map, basemap: basemap.identity.hash)
                    let png = try renderer.render(spec: spec, route: area.workout.route, heartRate: area.workout.heartRate, cacheKey: "bench")
                    let decoded = try PNGCodec.decode(png)
                    var rgb = [UInt8](repeating: 0, count: decoded.width * decoded.height * 3)
                    for index in 0..<(decoded.width * decoded.height) {
                        rgb[index * 3] = decoded.rgba[index * 4]
                        rgb[index * 3 + 1] = decoded.rgba[index * 4 + 1]
                        rgb[index * 3 + 2] = decoded.rgba[index * 4 + 2]
                    }
                    let pngEncoder = PNGEncoder()
                    let encoders = candidates.map { WebPEncoder(settings: $0) }
                    var pngTimes: [Duration] = []
                    var webpTimes = Array(repeating: [Duration](), count: encoders.count)
                    var pngBytes: [UInt8] = []
                    var webpBytes = Array(repeating: [UInt8](), count: encoders.count)
                    var same = Array(repeating: true, count: encoders.count)
                    for round in 0..<(options.runs + 2) {
                        let timed = round >= 2
                        try rgb.withUnsafeBytes { pixels in
                            let started = Measure.threadCPUTime()
                            pngBytes = try pngEncoder.encode(pixels: pixels, channels: 3, width: decoded.width, height: decoded.height)
                            if timed { pngTimes.append(Measure.threadCPUTime() - started) }
                            for (index, encoder) in encoders.enumerated() {
                                let began = Measure.threadCPUTime()
                                let bytes = try encoder.encode(rgb: pixels, width: decoded.width, height: decoded.height)
                                if timed { webpTimes[index].append(Measure.threadCPUTime() - began) }
                                if !webpBytes[index].isEmpty, bytes != webpBytes[index] { same[index] = false }
                                webpBytes[index] = bytes
                            }
                        }
                    }
                    let pngMS = Measure.milliseconds(Measure.median(pngTimes))
                    let prefix = RenderBench.pad(area.name, 15) + RenderBench.pad(theme.rawValue, 6) + RenderBench.pad("@\(scale)x", 7)
                    print(
                        prefix + RenderBench.pad("png (PixelDeflate)", 31) + RenderBench.pad(Measure.format(pngMS), 8)
                            + RenderBench.pad("1.00", 7) + RenderBench.pad("\(pngBytes.count)", 11) + RenderBench.pad("1.000", 7) + "inf")
                    for (index, encoder) in encoders.enumerated() {
                        let ms = Measure.milliseconds(Measure.median(webpTimes[index]))
                        let back = try WebPCodec.decode(webpBytes[index])
                        guard let difference = back.difference(from: decoded) else { throw BenchError("decoded WebP has another size") }
                        print(
                            prefix + RenderBench.pad("webp \(encoder.settings.identity)", 31) + RenderBench.pad(Measure.format(ms), 8)
                                + RenderBench.pad(Measure.format(ms / pngMS), 7) + RenderBench.pad("\(webpBytes[index].count)", 11)
                                + RenderBench.pad(Measure.format(Double(webpBytes[index].count) / Double(pngBytes.count), 3), 7)
                                + RenderBench.pad(difference.psnr.isInfinite ? "inf" : Measure.format(difference.psnr), 9)
                                + RenderBench.pad("\(difference.largest)", 9) + RenderBench.pad("\(difference.pixelsOver32)", 7)
                                + (same[index] ? "yes" : "NO"))
                        if let directory = options.mapOut {
                            let setting = encoder.settings.identity.replacingOccurrences(of: " ", with: "-")
                            let name = "\(area.name)_\(theme.rawValue)@\(scale)x_" + setting
                            let url = URL(fileURLWithPath: directory)
                            try Data(webpBytes[index]).write(to: url.appendingPathComponent(name + ".webp"))
                            try Data(PNGCodec.encode(rgba: back.rgba, width: back.width, height: back.height))
                                .write(to: url.appendingPathComponent(name + ".decoded.png"))
                        }
                    }
                    if let directory = options.mapOut {
                        try Data(png).write(
                            to: URL(fileURLWithPath: directory).appendingPathComponent("\(area.name)_\(theme.rawValue)@\(scale)x.png"))
                    }
                }
            }
        }
    }
}
