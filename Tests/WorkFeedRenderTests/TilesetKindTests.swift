import Foundation
import Logging
import Testing
import WorkFeedModel
import WorkFeedRender
import WorkFeedTiles
import WorkFeedStyle

/// Tilesets no fixture has, made for the test: raster tilesets (PNG and JPEG tiles) and a vector
/// tileset in the Protomaps schema.
@Suite struct TilesetKindTests {
    /// A 300 m walk at (47.0, 8.0), east to west; with the minimum span the map zoom is about 15.
    static let latitude = 47.0
    static let longitude = 8.0
    static let route = Route(segments: [
        [
            RoutePoint(latitude: latitude, longitude: longitude - 0.002, time: Date(timeIntervalSince1970: 0)),
            RoutePoint(latitude: latitude, longitude: longitude + 0.002, time: Date(timeIntervalSince1970: 300)),
        ]
    ])

    /// Two shades per zoom (a checkerboard of tiles), distinct from every zoom's and the route's.
    static func shades(z: Int) -> [RGBA] {
        let base: [(UInt8, UInt8, UInt8)] = [(200, 40, 40), (40, 200, 40), (200, 120, 40), (200, 200, 40), (200, 40, 200)]
        let (r, g, b) = base[(z - 13) % base.count]
        return [RGBA(red: r, green: g, blue: b, alpha: 255), RGBA(red: r / 10 * 9, green: g / 10 * 9, blue: b / 10 * 9, alpha: 255)]
    }

    static func solid(_ colour: RGBA, side: Int) -> (rgba: [UInt8], rgb: [UInt8]) {
        let pixel = side * side
        return (
            Array([[colour.red, colour.green, colour.blue, 255]].joined()).repeated(pixel),
            Array([[colour.red, colour.green, colour.blue]].joined()).repeated(pixel)
        )
    }

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-tilesets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func metadata(format: String, zooms: ClosedRange<Int>) -> [String: String] {
        [
            "name": "test \(format)", "format": format, "minzoom": "\(zooms.lowerBound)", "maxzoom": "\(zooms.upperBound)",
            "bounds": "7.9,46.9,8.1,47.1", "attribution": "© test tiles",
        ]
    }

    /// Which zoom's shades cover the most of `image`, and how many pixels they cover.
    static func dominantZoom(_ image: DecodedImage, zooms: ClosedRange<Int>, tolerance: Int = 3) -> (Int, Int) {
        zooms.map { z in (z, shades(z: z).reduce(0) { $0 + image.count($1, tolerance: tolerance) }) }.max { $0.1 < $1.1 }!
    }

    /// PNG tiles of 256 pixels at zooms 13 to 17: the picture is covered by them, with no land
    /// or background showing between tiles; the tileset's sharper tiles are used where a position
    /// is drawn larger than a tile (the next zoom at @1x, two down at @2x), in both themes.
    @Test func aPNGRasterTilesetIsTheGroundOfThePicture() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zooms = 13...17
        let writer = try TilesetWriter(
            path: directory.appendingPathComponent("raster.mbtiles").path, metadata: Self.metadata(format: "png", zooms: zooms))
        for z in zooms {
            for tile in TilesetWriter.tiles(z: z, latitude: Self.latitude, longitude: Self.longitude, reach: 0.012) {
                let shade = Self.shades(z: z)[(tile.x + tile.y) % 2]
                try writer.put(tile, PNGCodec.encode(rgba: Self.solid(shade, side: 256).rgba, width: 256, height: 256))
            }
        }
        let basemap = try MapFixtures.basemap([writer.path])
        let renderer = Renderer(basemap: basemap)
        var dominant: [Int: Int] = [:]
        for theme in Theme.shipped {
            for scale in [1, 2] {
                let spec = MapFixtures.spec(.route, theme, basemap: basemap, scale: scale)
                let png = try renderer.render(spec: spec, route: Self.route, heartRate: [], cacheKey: "k")
                let image = try PNGCodec.decode(png)
                #expect(renderer.lastStatistics.mapCoverage == .full)
                let (zoom, covered) = Self.dominantZoom(image, zooms: zooms)
                #expect(covered > image.width * image.height * 8 / 10, "\(theme) @\(scale)x: zoom \(zoom) covers \(covered)")
                if let earlier = dominant[scale] { #expect(earlier == zoom, "both themes draw the same tiles") }
                dominant[scale] = zoom
                // Nothing of the vector map's land or the plain background shows: every pixel
                // along every tile edge belongs to one tile.
                let style = ThemeStyle.shipped[theme]!.map
                let routeStyle = ThemeStyle.shipped[theme]!.route
                #expect(image.count(style.land, tolerance: 2) == 0)
                #expect(image.count(routeStyle.background, tolerance: 2) == 0)
                // Away from the route and the attribution, every pixel is one of the tiles' shades.
                let top = 0..<(image.height / 5)
                let shades = Self.shades(z: zoom)
                let plain = shades.reduce(0) { $0 + image.count($1, tolerance: 3, y: top) }
                #expect(plain == image.width * top.count, "\(theme) @\(scale)x: a row or column of other colours")
            }
        }
        let oneX = try #require(dominant[1])
        #expect(oneX > 13, "a 256-pixel tile drawn on a 512-pixel position is replaced by its children")
        #expect(dominant[2] == min(oneX + 1, zooms.upperBound), "@2x goes one zoom further than @1x")
    }

    /// JPEG tiles are drawn too; a damaged JPEG tile is left out and counted, and the rest of the
    /// picture is still drawn.
    @Test func aJPEGRasterTilesetIsDrawnAndADamagedTileIsSkipped() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try TilesetWriter(
            path: directory.appendingPathComponent("raster.mbtiles").path, metadata: Self.metadata(format: "jpg", zooms: 15...15))
        let tiles = TilesetWriter.tiles(z: 15, latitude: Self.latitude, longitude: Self.longitude, reach: 0.012)
        for tile in tiles {
            let shade = Self.shades(z: 15)[(tile.x + tile.y) % 2]
            try writer.put(tile, TilesetWriter.jpeg(rgb: Self.solid(shade, side: 512).rgb, width: 512, height: 512))
        }
        let basemap = try MapFixtures.basemap([writer.path])
        let renderer = Renderer(basemap: basemap)
        let spec = MapFixtures.spec(.route, .light, basemap: basemap)
        let whole = try PNGCodec.decode(renderer.render(spec: spec, route: Self.route, heartRate: [], cacheKey: "k"))
        #expect(renderer.lastStatistics.mapCoverage == .full)
        #expect(renderer.lastStatistics.brokenTiles == 0)
        let covered = Self.shades(z: 15).reduce(0) { $0 + whole.count($1, tolerance: 4) }
        #expect(covered > whole.width * whole.height * 8 / 10)

        // The tile under the route's start, cut short.
        let start = try #require(TilesetWriter.tiles(z: 15, latitude: Self.latitude, longitude: Self.longitude - 0.002, reach: 0).first)
        let bytes = TilesetWriter.jpeg(rgb: Self.solid(Self.shades(z: 15)[0], side: 512).rgb, width: 512, height: 512)
        try writer.put(start, Array(bytes.prefix(bytes.count / 2)))
        let damagedBasemap = try MapFixtures.basemap([writer.path])
        let damagedRenderer = Renderer(basemap: damagedBasemap)
        let damagedPNG = try damagedRenderer.render(
            spec: MapFixtures.spec(.route, .light, basemap: damagedBasemap), route: Self.route, heartRate: [], cacheKey: "k")
        let damaged = try PNGCodec.decode(damagedPNG)
        #expect(damagedRenderer.lastStatistics.brokenTiles == 1)
        #expect(damagedRenderer.lastStatistics.mapCoverage == .partial)
        #expect(damaged.count(RouteStyle.light.line, tolerance: 1) > 100, "the route is still drawn")
        #expect(damaged.count(RouteStyle.light.background, tolerance: 1) > 1000, "the damaged tile's square is plain")
    }

    /// A WebP tileset is refused when it is opened, naming the file and what WorkFeed reads.
    @Test func aWebPTilesetIsRefusedAtStart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try TilesetWriter(
            path: directory.appendingPathComponent("webp.mbtiles").path, metadata: Self.metadata(format: "webp", zooms: 15...15))
        #expect {
            try MapFixtures.basemap([writer.path])
        } throws: { error in
            let text = "\(error)"
            return text.contains("webp.mbtiles") && text.contains("'webp'") && text.contains("png")
        }
    }

    /// A tileset in the Protomaps basemap schema (`landuse` kind park, `water`, a grid of `roads`
    /// of kind highway and minor_road) is styled like an OpenMapTiles one, in each theme's palette.
    @Test(arguments: Theme.shipped)
    func aProtomapsSchemaTilesetIsStyled(theme: Theme) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try TilesetWriter(
            path: directory.appendingPathComponent("protomaps.mbtiles").path, metadata: Self.metadata(format: "pbf", zooms: 14...14))
        var tile = VectorTileWriter()
        tile.addLayer(
            "landuse",
            features: [
                .init(tags: ["kind": "park"], geometry: .polygon([[(0, 0), (2048, 0), (2048, 4096), (0, 4096), (0, 0)]]))
            ])
        tile.addLayer(
            "water",
            features: [
                .init(tags: ["kind": "water"], geometry: .polygon([[(2600, 2600), (4096, 2600), (4096, 4096), (2600, 4096), (2600, 2600)]]))
            ])
        // A grid of roads, a third of a picture apart: highways across, minor roads down.
        tile.addLayer(
            "roads",
            features: stride(from: 256, to: 4096, by: 512).flatMap { at -> [VectorTileWriter.Feature] in
                [
                    .init(tags: ["kind": "highway"], geometry: .line([(-64, at), (4160, at)])),
                    .init(tags: ["kind": "minor_road"], geometry: .line([(at, -64), (at, 4160)])),
                ]
            })
        for coordinate in TilesetWriter.tiles(z: 14, latitude: Self.latitude, longitude: Self.longitude, reach: 0.02) {
            try writer.put(coordinate, tile.bytes)
        }
        let basemap = try MapFixtures.basemap([writer.path])
        let renderer = Renderer(basemap: basemap)
        let style = ThemeStyle.shipped[theme]!.map
        let png = try renderer.render(spec: MapFixtures.spec(.route, theme, basemap: basemap), route: Self.route, heartRate: [], cacheKey: "k")
        let image = try PNGCodec.decode(png)
        #expect(renderer.lastStatistics.mapCoverage == .full)
        #expect(image.count(style[.park], tolerance: 1) > 5_000, "park")
        #expect(image.count(style[.water], tolerance: 1) > 2_000, "water")
        #expect(image.count(style[.motorway].fill, tolerance: 1) > 200, "highway fill")
        #expect(image.count(style[.minor].fill, tolerance: 1) > 100, "minor road fill")
        let other = ThemeStyle.shipped[theme == .light ? .dark : .light]!.map
        #expect(image.count(other[.park], tolerance: 1) < 100, "the other theme's palette is not used")
    }
}

extension Array {
    fileprivate func repeated(_ times: Int) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(count * times)
        for _ in 0..<times { result.append(contentsOf: self) }
        return result
    }
}
