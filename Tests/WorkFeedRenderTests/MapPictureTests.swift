import Foundation
import GRDB
import Logging
import Testing
import WorkFeedImport
import WorkFeedModel
import WorkFeedRender
import WorkFeedTiles
import WorkFeedStyle

/// Real files for map pictures: the demo's Heidelberg tileset, real recordings inside and outside it.
enum MapFixtures {
    /// The repository's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let heidelberg = root.appendingPathComponent("deploy/basemap/heidelberg.mbtiles").path
    static let monaco = root.appendingPathComponent("Tests/Data/basemap/tilesets/monaco-z10-14.mbtiles").path
    static let run = root.appendingPathComponent("Tests/Data/tracks-in-map/heidelberg/runpandas_garmin-fr645m_run_2019_hr.fit")
    static let ride = root.appendingPathComponent("Tests/Data/tracks-in-map/heidelberg/fitfiler_tomtom-runner3_ride_2021.fit")
    static let zeeland = root.appendingPathComponent(
        "Tests/Data/tracks-in-map/zeeland/Zeeland__Activities__Spaziergang__Brooks_Caldera_5__2025-08-30_20_29_18.085_BC_Cadzand-Bad.gpx")

    static func basemap(_ paths: [String] = [heidelberg]) throws -> Basemap {
        try Basemap(tilesetLocations: paths, logger: Logger(label: "test"))
    }

    static func workout(_ url: URL) throws -> ImportedWorkout {
        let batch = WorkoutFileReader.readAll(contentsOf: url)
        return try #require(batch.workouts.first, "\(url.lastPathComponent): \(batch.errors)")
    }

    /// - Parameter names: `false` hides every name, for tests of the map's geometry under them.
    static func spec(_ kind: JobKind, _ theme: Theme, basemap: Basemap?, scale: Int = 1, names: Bool = true) -> PictureSpec {
        var map = ThemeStyle.shipped[theme]!.map
        if !names {
            for kind in MapLabelKind.allCases { map.labels[kind].show = false }
        }
        return PictureSpec(
            kind: kind, theme: theme, width: 512, height: 512, scale: scale, style: ThemeStyle.shipped[theme]!.route,
            heatmap: .standard, ramp: RampStyle.standard(for: kind, activity: .running, units: .metric), map: map,
            basemap: basemap?.identity.hash)
    }

    /// Draws and decodes, returning the renderer's statistics too.
    static func draw(
        _ spec: PictureSpec, _ workout: ImportedWorkout, renderer: Renderer
    ) throws -> (DecodedImage, RenderStatistics, [UInt8]) {
        let png = try renderer.render(spec: spec, route: workout.route, heartRate: workout.heartRate, cacheKey: "test-key")
        return (try PNGCodec.decode(png), renderer.lastStatistics, png)
    }
}

extension DecodedImage {
    /// How many pixels within `tolerance` (each channel) of `colour`, in the box.
    func count(_ colour: RGBA, tolerance: Int = 2, x: Range<Int>? = nil, y: Range<Int>? = nil) -> Int {
        var n = 0
        for row in y ?? 0..<height {
            for column in x ?? 0..<width {
                let p = pixel(x: column, y: row)
                if abs(Int(p.red) - Int(colour.red)) <= tolerance, abs(Int(p.green) - Int(colour.green)) <= tolerance,
                    abs(Int(p.blue) - Int(colour.blue)) <= tolerance
                {
                    n += 1
                }
            }
        }
        return n
    }
}

@Suite struct MapPictureTests {
    @Test(arguments: Theme.shipped)
    func aHeidelbergRunShowsRoadsParksAndLanduseUnderTheRoute(theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let style = ThemeStyle.shipped[theme]!.map
        for kind in JobKind.allCases where !kind.isCard {
            // Names are left out: this looks at what lies under them.
            let spec = MapFixtures.spec(kind, theme, basemap: basemap, names: false)
            let (image, statistics, _) = try MapFixtures.draw(spec, run, renderer: renderer)
            #expect(statistics.mapCoverage == .full)
            #expect(statistics.mapTiles > 0)
            let total = image.width * image.height
            // The map's own colours cover most of the picture (the route and marks take the rest).
            let mapColours = [
                style.land, style[RoadClass.minor].fill, style[RoadClass.path].fill, style[MapArea.residential], style[MapArea.industrial],
                style[MapArea.wood], style[MapArea.park], style[MapArea.grass],
            ]
            let mapPixels = Set(mapColours).reduce(0) { $0 + image.count($1) }
            #expect(mapPixels > total * 6 / 10, "\(kind) \(theme): map colours")
            // Roads, parks and residential land use, each clearly present, not a stray pixel.
            #expect(image.count(style[RoadClass.minor].fill) > total / 250, "\(kind) \(theme): minor roads")
            #expect(
                image.count(style[MapArea.park]) + image.count(style[MapArea.grass]) + image.count(style[MapArea.wood]) > total / 200,
                "\(kind) \(theme): green")
            #expect(image.count(style[MapArea.residential]) > total / 200, "\(kind) \(theme): residential")
            // The plain background shows nowhere: the tileset covers the whole picture.
            let plain = ThemeStyle.shipped[theme]!.route.background
            #expect(image.count(plain, tolerance: 0) < total / 1000, "\(kind) \(theme): plain background")
        }
    }

    @Test func lightAndDarkMapsDifferAsTheirPalettesSay() throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let (light, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, .light, basemap: basemap), run, renderer: renderer)
        let (dark, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, .dark, basemap: basemap), run, renderer: renderer)
        #expect(light.count(MapStyle.light[MapArea.wood]) > 5_000)
        #expect(dark.count(MapStyle.dark[MapArea.wood]) > 5_000)
        #expect(light.count(MapStyle.dark[MapArea.wood]) == 0)
        #expect(dark.count(MapStyle.light[MapArea.wood]) == 0)
        // Not an inversion: dark land is not the light land's inverse, and roads are lighter than
        // land in both (light roads on a light map, grey roads on a dark one).
        func luminance(_ c: RGBA) -> Int { Int(c.red) * 3 + Int(c.green) * 6 + Int(c.blue) }
        #expect(luminance(MapStyle.light[RoadClass.minor].fill) > luminance(MapStyle.light.land))
        #expect(luminance(MapStyle.dark[RoadClass.minor].fill) > luminance(MapStyle.dark.land))
    }

    @Test func theRouteStaysOnTopOfTheMap() throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        for theme in Theme.shipped {
            let style = ThemeStyle.shipped[theme]!.route
            let (image, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: basemap), run, renderer: renderer)
            #expect(image.count(style.line, tolerance: 1) > 2_000, "\(theme): route line")
            #expect(image.count(style.startMark, tolerance: 1) + image.count(style.endMark, tolerance: 1) > 20, "\(theme): marks")
        }
    }

    /// A picture centred exactly on a corner of four zoom-14 tiles: along the tile edges (column
    /// 255|256 and row 255|256), wherever the map is smooth across the edge, the two pixels at
    /// the edge match their neighbours: no seam, no gap, no doubled line.
    @Test(arguments: Theme.shipped)
    func noSeamAtTileEdges(theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let n = Double(1 << 14)
        let edgeX = (8.7 / 360 + 0.5) * n
        let edgeY = (0.5 - log(tan(.pi / 4 + 49.405 * .pi / 360)) / (2 * .pi)) * n
        let x = edgeX.rounded() / n
        let y = edgeY.rounded() / n
        func latitude(_ y: Double) -> Double { atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi }
        func longitude(_ x: Double) -> Double { (x - 0.5) * 360 }
        // A short diagonal route whose bounding box is centred on the corner: the picture spans
        // 600 m (the minimum), about 0.55 tiles, so the corner is its centre.
        let d = 0.05 / n
        let route = Route(segments: [
            [
                RoutePoint(latitude: latitude(y - d), longitude: longitude(x - d), time: Date(timeIntervalSince1970: 0)),
                RoutePoint(latitude: latitude(y + d), longitude: longitude(x + d), time: Date(timeIntervalSince1970: 60)),
            ]
        ])
        // Names are text over the map, not its geometry: left out here.
        let spec = MapFixtures.spec(.route, theme, basemap: basemap, names: false)
        let png = try renderer.render(spec: spec, route: route, heartRate: [], cacheKey: "k")
        let image = try PNGCodec.decode(png)
        #expect(renderer.lastStatistics.mapTiles == 4)
        let plain = spec.style.background
        func distance(_ a: RGBA, _ b: RGBA) -> Int {
            max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
        }
        var smooth = 0
        // A seam runs along the edge: a thin line that merely crosses it (paths stand out on the
        // dark map) changes a row or two, a seam a long run of rows.
        var seamRows: [String: [Int]] = [:]
        for i in 0..<512 where abs(i - 256) > 40 {
            // Across the vertical edge (columns 254 255 | 256 257) and the horizontal one.
            for (a, b, c, e, label) in [
                (image.pixel(x: 254, y: i), image.pixel(x: 255, y: i), image.pixel(x: 256, y: i), image.pixel(x: 257, y: i), "row \(i)"),
                (image.pixel(x: i, y: 254), image.pixel(x: i, y: 255), image.pixel(x: i, y: 256), image.pixel(x: i, y: 257), "column \(i)"),
            ] {
                #expect(distance(b, plain) > 0 || distance(a, plain) == 0, "gap at \(label)")
                guard distance(a, e) <= 6 else { continue }
                smooth += 1
                if distance(a, b) > 20 || distance(c, e) > 20 { seamRows[String(label.prefix { $0 != " " }), default: []].append(i) }
            }
        }
        var seams: [String] = []
        for (edge, rows) in seamRows {
            var run = 1
            for (previous, row) in zip(rows, rows.dropFirst()) {
                run = row == previous + 1 ? run + 1 : 1
                if run >= 6 { seams.append("\(edge) \(row)") }
            }
        }
        #expect(smooth > 400)
        #expect(seams.isEmpty, "seams at \(seams.prefix(10))")
    }

    /// The attribution's text is drawn in the bottom-right corner, at @1x and @2x, in both
    /// themes: dark ink on the light box, light ink on the dark one.
    @Test(arguments: Theme.shipped, [1, 2])
    func theAttributionIsInTheCorner(theme: Theme, scale: Int) throws {
        let basemap = try MapFixtures.basemap()
        let run = try MapFixtures.workout(MapFixtures.run)
        let (image, _, _) = try MapFixtures.draw(
            MapFixtures.spec(.route, theme, basemap: basemap, scale: scale), run, renderer: Renderer(basemap: basemap))
        let style = ThemeStyle.shipped[theme]!.map
        let size = 512 * scale
        let corner = (size - 150 * scale)..<size
        let bottom = (size - 14 * scale)..<size
        let ink = image.count(style.attributionText, tolerance: 40, x: corner, y: bottom)
        #expect(ink > 60 * scale * scale, "\(theme) @\(scale)x: \(ink) pixels of text")
        // The same corner of a picture drawn without the map holds no text.
        let (plain, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: nil, scale: scale), run, renderer: Renderer())
        #expect(plain.count(style.attributionText, tolerance: 40, x: corner, y: bottom) < ink / 10)
    }

    @Test func aRouteOutsideEveryTilesetGivesTheUsualPlainPicture() throws {
        let basemap = try MapFixtures.basemap()
        let walk = try MapFixtures.workout(MapFixtures.zeeland)
        for theme in Theme.shipped {
            let withMap = Renderer(basemap: basemap)
            let (image, statistics, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: basemap), walk, renderer: withMap)
            #expect(statistics.mapCoverage == .none)
            #expect(statistics.mapTiles == 0)
            let (plain, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: nil), walk, renderer: Renderer())
            #expect(image == plain, "\(theme): the same pixels as a picture drawn without tilesets")
        }
    }

    @Test func aSpecForAnotherBasemapIsRefused() throws {
        let basemap = try MapFixtures.basemap()
        let run = try MapFixtures.workout(MapFixtures.run)
        var spec = MapFixtures.spec(.route, .light, basemap: basemap)
        spec.basemap = String(repeating: "0", count: 64)
        #expect(throws: RenderFailure.basemapDiffers) {
            try Renderer(basemap: basemap).render(spec: spec, route: run.route, heartRate: [], cacheKey: "k")
        }
    }

    @Test func samePicturesEveryTime() throws {
        let basemap = try MapFixtures.basemap()
        let ride = try MapFixtures.workout(MapFixtures.ride)
        let spec = MapFixtures.spec(.route, .dark, basemap: basemap, scale: 2)
        let first = try Renderer(basemap: basemap).render(spec: spec, route: ride.route, heartRate: [], cacheKey: "k")
        // Another renderer and another cache: tiles read again from the file.
        let second = try Renderer(basemap: try MapFixtures.basemap()).render(spec: spec, route: ride.route, heartRate: [], cacheKey: "k")
        #expect(first == second)
    }

    @Test func aShortRouteShowsTheStreetsAroundIt() throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        // About 90 m along a street in Heidelberg's old town.
        let route = Route(segments: [
            [
                RoutePoint(latitude: 49.4105, longitude: 8.7050, time: Date(timeIntervalSince1970: 0)),
                RoutePoint(latitude: 49.4107, longitude: 8.7062, time: Date(timeIntervalSince1970: 30)),
            ]
        ])
        let spec = MapFixtures.spec(.route, .light, basemap: basemap)
        let image = try PNGCodec.decode(renderer.render(spec: spec, route: route, heartRate: [], cacheKey: "k"))
        let line = try #require(image.boundingBox(matching: RouteStyle.light.line))
        // 90 m of a 600 m wide picture: the line spans well under a third of it.
        #expect(line.maxX - line.minX < 512 / 3)
        #expect(image.count(MapStyle.light[MapArea.building], tolerance: 40) > 1_000)
    }
}

extension DecodedImage {
    /// The smallest box holding every pixel of `colour`.
    func boundingBox(matching colour: RGBA) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var box: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
        for y in 0..<height {
            for x in 0..<width where pixel(x: x, y: y) == colour {
                if let b = box {
                    box = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
                } else {
                    box = (x, y, x, y)
                }
            }
        }
        return box
    }
}

@Suite struct BrokenTileTests {
    /// A copy of the Monaco tileset whose tile under the picture's centre is not gzip: the picture
    /// is still drawn, the tile is left out and counted, and it is read only once.
    @Test func aCorruptTileIsSkippedAndCounted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("monaco.mbtiles").path
        try FileManager.default.copyItem(atPath: MapFixtures.monaco, toPath: path)
        let latitude = 43.7384
        let longitude = 7.4246
        let n = Double(1 << 14)
        let x = Int((longitude / 360 + 0.5) * n)
        let y = Int((0.5 - log(tan(.pi / 4 + latitude * .pi / 360)) / (2 * .pi)) * n)
        let changed = try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: "UPDATE tiles SET tile_data = ? WHERE zoom_level = 14 AND tile_column = ? AND tile_row = ?",
                arguments: [Data([0x1F, 0x8B, 0x08, 0x00, 0xDE, 0xAD]), x, (1 << 14) - 1 - y])
            return db.changesCount
        }
        try #require(changed == 1)

        let basemap = try MapFixtures.basemap([path])
        let renderer = Renderer(basemap: basemap)
        let route = Route(segments: [
            [
                RoutePoint(latitude: latitude - 0.001, longitude: longitude - 0.001, time: Date(timeIntervalSince1970: 0)),
                RoutePoint(latitude: latitude + 0.001, longitude: longitude + 0.001, time: Date(timeIntervalSince1970: 60)),
            ]
        ])
        let spec = MapFixtures.spec(.route, .light, basemap: basemap)
        for _ in 0..<2 {
            let image = try PNGCodec.decode(renderer.render(spec: spec, route: route, heartRate: [], cacheKey: "k"))
            #expect(renderer.lastStatistics.brokenTiles == 1)
            #expect(image.count(RouteStyle.light.line, tolerance: 1) > 100)
        }
        #expect(basemap.statistics.brokenTiles == 1)
    }
}
