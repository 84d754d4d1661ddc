import Foundation
import Logging
import Testing
import WorkFeedModel
import WorkFeedTiles

@testable import WorkFeedRender
import WorkFeedStyle

/// Names on the map, the dark map's contrast, the heatmap legend and the marks, on real tiles and
/// recordings (the demo's Heidelberg tileset) and on tiles made here.
@Suite struct LabelTests {
    /// Every pair of label boxes from the placer: none overlaps another label's, and none touches
    /// the marks, the legend or the attribution.
    @Test(arguments: Theme.shipped, [1, 2])
    func namesNeverOverlapEachOtherOrWhatIsReserved(theme: Theme, scale: Int) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        for url in [MapFixtures.run, MapFixtures.ride] {
            let workout = try MapFixtures.workout(url)
            for kind in JobKind.allCases where !kind.isCard && (kind == .route || !workout.heartRate.isEmpty) {
                let spec = MapFixtures.spec(kind, theme, basemap: basemap, scale: scale)
                _ = try MapFixtures.draw(spec, workout, renderer: renderer)
                let labels = renderer.labelPlacer.placed
                let name = "\(url.lastPathComponent) \(kind) \(theme) @\(scale)x"
                if url == MapFixtures.run { #expect(labels.count >= 2, "\(name): names drawn") }
                for (i, a) in labels.enumerated() {
                    for b in labels[(i + 1)...] {
                        for boxA in a.boxes {
                            #expect(!b.boxes.contains { $0.intersects(boxA) }, "\(name): \(a.text) overlaps \(b.text)")
                        }
                    }
                    let marks = renderer.markBoxes(style: spec.style, scale: scale, margin: 0)
                    for box in a.boxes {
                        #expect(!marks.contains { $0.intersects(box) }, "\(name): \(a.text) covers a mark")
                        if let legend = renderer.legendBox { #expect(!legend.intersects(box), "\(name): \(a.text) covers the legend") }
                        // The attribution's box: the bottom-right corner, 10 pt text and padding.
                        let attribution = LabelBox(
                            minX: Float(spec.pixelWidth - 170 * scale), minY: Float(spec.pixelHeight - 18 * scale),
                            maxX: Float(spec.pixelWidth), maxY: Float(spec.pixelHeight))
                        #expect(!attribution.intersects(box), "\(name): \(a.text) covers the attribution")
                    }
                }
            }
        }
    }

    /// The route lies over its map: where the picture without names shows the route's line, the
    /// picture with names shows exactly the same, and names changed pixels only inside their boxes.
    @Test(arguments: Theme.shipped)
    func routePixelsAreTheSameWithAndWithoutNames(theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let (named, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: basemap), run, renderer: renderer)
        let boxes = renderer.labelPlacer.placed.flatMap(\.boxes)
        #expect(!boxes.isEmpty)
        let (plain, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: basemap, names: false), run, renderer: renderer)
        let line = ThemeStyle.shipped[theme]!.route.line
        var routePixels = 0
        var changed = 0
        for y in 0..<plain.height {
            for x in 0..<plain.width {
                let before = plain.pixel(x: x, y: y)
                let after = named.pixel(x: x, y: y)
                if before == line {
                    routePixels += 1
                    #expect(after == before, "route pixel \(x),\(y) changed")
                }
                if before != after {
                    changed += 1
                    let inside = boxes.contains { box in
                        Float(x) + 0.5 >= box.minX - 1 && Float(x) + 0.5 <= box.maxX + 1 && Float(y) + 0.5 >= box.minY - 1
                            && Float(y) + 0.5 <= box.maxY + 1
                    }
                    #expect(inside, "pixel \(x),\(y) changed outside every name's box")
                }
            }
        }
        #expect(routePixels > 1_000)
        #expect(changed > 100)
    }

    /// Every name has a rim of the theme's halo colour, at @1x and @2x.
    @Test(arguments: Theme.shipped, [1, 2])
    func namesHaveHalos(theme: Theme, scale: Int) throws {
        let (renderer, run, spec) = try MapFixtures.heidelbergRun(theme, scale: scale)
        let (image, _, _) = try MapFixtures.draw(spec, run, renderer: renderer)
        let style = try #require(spec.map).labels
        for label in renderer.labelPlacer.placed {
            var halo = 0
            var ink = 0
            for box in label.boxes {
                let xs = max(Int(box.minX), 0)..<min(Int(box.maxX.rounded(.up)), image.width)
                let ys = max(Int(box.minY), 0)..<min(Int(box.maxY.rounded(.up)), image.height)
                halo += image.count(style.halo, tolerance: 1, x: xs, y: ys)
                ink += image.count(style[label.kind].color, tolerance: 24, x: xs, y: ys)
            }
            #expect(halo > 4 * scale, "\(label.text): halo pixels \(halo)")
            #expect(ink > 4 * scale, "\(label.text): ink pixels \(ink)")
        }
    }

    /// The dark map is seen: on both real Heidelberg recordings it changes at least 15 % of the
    /// pixels against the plain dark picture (a change a person sees: more than 12 levels in a
    /// channel), as the light map does against the plain light one.
    @Test(arguments: [MapFixtures.run, MapFixtures.ride])
    func theDarkMapChangesAtLeastAFifteenthOfThePicture(url: URL) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let workout = try MapFixtures.workout(url)
        for theme in Theme.shipped {
            let (map, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: basemap), workout, renderer: renderer)
            let (plain, _, _) = try MapFixtures.draw(MapFixtures.spec(.route, theme, basemap: nil), workout, renderer: renderer)
            var changed = 0
            for y in 0..<map.height {
                for x in 0..<map.width {
                    let a = map.pixel(x: x, y: y)
                    let b = plain.pixel(x: x, y: y)
                    let d = max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
                    if d > 12 { changed += 1 }
                }
            }
            let share = Double(changed) / Double(map.width * map.height)
            print("\(url.lastPathComponent) \(theme): the map changes \(Int((share * 100).rounded())) % of the pixels")
            #expect(share >= 0.15, "\(theme): \(share)")
        }
    }

    /// Roads stand out from the dark map's land: every class at least 1.5:1 (WCAG's ratio).
    @Test(arguments: RoadClass.allCases)
    func darkRoadsContrastWithTheLand(road: RoadClass) {
        func luminance(_ c: RGBA) -> Double {
            func channel(_ v: UInt8) -> Double {
                let x = Double(v) / 255
                return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(c.red) + 0.7152 * channel(c.green) + 0.0722 * channel(c.blue)
        }
        let fill = luminance(MapStyle.dark[road].fill)
        let land = luminance(MapStyle.dark.land)
        #expect((max(fill, land) + 0.05) / (min(fill, land) + 0.05) >= 1.5)
    }

    /// A name in Greek and one in Arabic (from a tile made here) come out as real glyphs: the
    /// fonts draw them whole, and the picture shows ink where the name is. A name in a script no
    /// installed font has (Japanese) is drawn from its name:latin, and one with no Latin form is
    /// left out, never drawn as boxes. Broken name fields cost their label only.
    @Test(arguments: Theme.shipped)
    func namesInOtherScriptsAreRealGlyphsOrTheirLatinForm(theme: Theme) throws {
        let directory = try TilesetKindTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try TilesetWriter(
            path: directory.appendingPathComponent("scripts.mbtiles").path,
            metadata: TilesetKindTests.metadata(format: "pbf", zooms: 14...14))
        var tile = VectorTileWriter()
        // Each name on a grid across the tile, so that whichever part of it the picture shows
        // holds every one.
        let names: [[String: String]] = [
            ["name": "Αθήνα"], ["name": "القاهرة"], ["name": "東京", "name:latin": "Tokyo"], ["name": "大阪"],
            ["name": "Bad\u{7}Name"], ["name": String(repeating: "x", count: 2_000)],
        ]
        var features: [VectorTileWriter.Feature] = []
        for gy in 0..<12 {
            for gx in 0..<12 {
                var tags = names[(gx + 3 * gy) % names.count]
                tags["class"] = "suburb"
                features.append(.init(tags: tags, geometry: .point((gx * 341 + 170, gy * 341 + 170))))
            }
        }
        tile.addLayer("place", features: features)
        for coordinate in TilesetWriter.tiles(z: 14, latitude: TilesetKindTests.latitude, longitude: TilesetKindTests.longitude, reach: 0.02) {
            try writer.put(coordinate, tile.bytes)
        }
        let basemap = try MapFixtures.basemap([writer.path])
        let renderer = Renderer(basemap: basemap)
        let spec = MapFixtures.spec(.route, theme, basemap: basemap, scale: 2)
        let png = try renderer.render(spec: spec, route: TilesetKindTests.route, heartRate: [], cacheKey: "k")
        let image = try PNGCodec.decode(png)
        // WORKFEED_LOOK=DIRECTORY keeps the picture, to look at it.
        if let look = ProcessInfo.processInfo.environment["WORKFEED_LOOK"] {
            try Data(png).write(to: URL(fileURLWithPath: look).appendingPathComponent("scripts_\(theme)@2x.png"))
        }
        let texts = Set(renderer.labelPlacer.placed.map(\.text))
        #expect(texts.contains("Αθήνα"))
        #expect(texts.contains("القاهرة"))
        #expect(texts.contains("Tokyo"))
        #expect(!texts.contains { $0.contains("東京") || $0.contains("大阪") })
        #expect(!texts.contains { $0.contains("Bad") || $0.hasPrefix("xxx") })
        let fonts = try #require(renderer.fonts)
        for text in ["Αθήνα", "القاهرة", "Tokyo"] {
            let font = try #require(fonts.font(for: text), "\(text): no font draws it")
            #expect(font.covers(text))
            let label = try #require(renderer.labelPlacer.placed.first { $0.text == text })
            let box = try #require(label.boxes.first)
            let ink = image.count(
                spec.map!.labels[.suburb].color, tolerance: 40, x: Int(box.minX)..<Int(box.maxX), y: Int(box.minY)..<Int(box.maxY))
            #expect(ink > 20, "\(text): \(ink) ink pixels")
        }
        // No installed font has Japanese: its characters would be boxes.
        #expect(fonts.font(for: "東京") == nil)
    }

    /// Protomaps' layers give names too: places, roads along their line, water and parks.
    @Test func protomapsNamesAreRead() throws {
        var tile = VectorTileWriter()
        tile.addLayer(
            "places", features: [.init(tags: ["kind": "locality", "kind_detail": "town", "name": "Vaduz"], geometry: .point((100, 100)))])
        tile.addLayer(
            "roads",
            features: [.init(tags: ["kind": "minor_road", "name": "Städtle"], geometry: .line([(0, 2000), (4096, 2000)]))])
        tile.addLayer(
            "pois", features: [.init(tags: ["kind": "peak", "name": "Drei Schwestern"], geometry: .point((500, 500)))])
        tile.addLayer(
            "water",
            features: [.init(tags: ["kind": "river", "name": "Rhein"], geometry: .line([(0, 0), (4096, 4096)]))])
        let decoded = try VectorTile(decoding: tile.bytes)
        let labels = MapTile(vectorTile: decoded).labels
        let found = Dictionary(labels.map { ($0.preferred, $0.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(found["Vaduz"] == .town)
        #expect(found["Städtle"] == .minorRoad)
        #expect(found["Drei Schwestern"] == .peak)
        #expect(found["Rhein"] == .river)
        #expect(labels.first { $0.preferred == "Städtle" }?.isLine == true)
    }

    /// A broken name field (control characters, 2 KB long) costs its label, is counted for the
    /// worker's warning naming the tile, and the tile's other names are read.
    @Test func brokenNameFieldsAreCountedAndLeftOut() throws {
        var tile = VectorTileWriter()
        tile.addLayer(
            "place",
            features: [
                .init(tags: ["class": "town", "name": "Bad\u{1B}[31mName"], geometry: .point((10, 10))),
                .init(tags: ["class": "town", "name": String(repeating: "y", count: 2_048)], geometry: .point((20, 20))),
                .init(tags: ["class": "town", "name": "Schaan"], geometry: .point((30, 30))),
            ])
        let classified = MapTile(vectorTile: try VectorTile(decoding: tile.bytes))
        #expect(classified.brokenNames == 2)
        #expect(classified.labels.map(\.preferred) == ["Schaan"])
    }

    /// A fallback font that is not a font stops a worker's basemap at start, naming the file.
    @Test func aBadFallbackFontIsRefusedWithItsPath() throws {
        let directory = try TilesetKindTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notAFont = directory.appendingPathComponent("NotAFont.ttf")
        try Data("not a font".utf8).write(to: notAFont)
        do {
            _ = try Basemap(
                tilesetLocations: [MapFixtures.heidelberg], fallbackFontPaths: [notAFont.path], logger: .init(label: "test"))
            Issue.record("a file that is not a font was accepted")
        } catch {
            #expect(error.path == notAFont.path)
            #expect(error.description.contains("NotAFont.ttf"))
        }
    }

    /// Along a line: read left to right whichever way the line runs, and never across a bend.
    @Test func streetNamesFollowTheirRoadUprightAndNeverAcrossASharpBend() throws {
        let fonts = FontSet(paths: [FontFace.defaultPath])
        var placer = LabelPlacer()
        let style = MapStyle.light.labels
        func place(_ points: [SIMD2<Float>]) -> PlacedLabel? {
            placer.reset(width: 512, height: 512, scale: 1)
            let label = TileLabel(kind: .minorRoad, name: "Hauptstraße", latin: "", rank: 0, points: points)
            placer.place([label], style: style, zoom: 16, scale: 1, fonts: fonts)
            return placer.placed.first
        }
        // Right to left: the glyphs still run left to right, upright.
        let leftwards = try #require(place([SIMD2(400, 200), SIMD2(100, 210)]))
        guard case .along(let glyphs, _, _) = leftwards.drawing else {
            Issue.record("not along the line")
            return
        }
        #expect(glyphs.count == "Hauptstraße".count)
        #expect(zip(glyphs, glyphs.dropFirst()).allSatisfy { $0.origin.x < $1.origin.x })
        #expect(glyphs.allSatisfy { abs($0.angle) <= 90 })
        // A hairpin shorter than the name: no place without crossing the bend.
        let hairpin = place([SIMD2(100, 100), SIMD2(150, 100), SIMD2(100, 104)])
        #expect(hairpin == nil)
        // A right angle in the middle of a long street: the name goes on a straight stretch.
        let corner = try #require(place([SIMD2(40, 100), SIMD2(300, 100), SIMD2(300, 400)]))
        guard case .along(let turned, _, _) = corner.drawing else { return }
        let angles = turned.map(\.angle)
        #expect((angles.max() ?? 0) - (angles.min() ?? 0) <= 50)
    }

    /// On a loop the two marks become one: the start colour with the end colour at its centre,
    /// and nothing of a separate end mark.
    @Test func aLoopHasOneCombinedMark() throws {
        var points = Fixtures.points(count: 21)
        points += Fixtures.points(from: 0.01, to: 0, count: 21, startSecond: 20).dropFirst()
        let style = Fixtures.style(markRadius: 5)
        let spec = Fixtures.spec(kind: .route, style: style, heatmap: .standard)
        let image = try Fixtures.render(spec, Route(segments: [points]), heartRate: [])
        let first = try #require(image.find(style.startMark))
        let centre = try #require(image.find(style.endMark))
        // The end colour sits inside the start colour's disc, where the route began.
        let d = SIMD2(Float(first.x - centre.x), Float(first.y - centre.y))
        #expect((d * d).sum().squareRoot() < Float(style.markRadius) * 2)
        // A route that does not come back keeps two marks apart.
        let open = try Fixtures.render(spec, Route(segments: [Fixtures.points(count: 41)]), heartRate: [])
        let start = try #require(open.find(style.startMark))
        let end = try #require(open.find(style.endMark))
        #expect(abs(start.x - end.x) > 20)
    }

    /// The heatmap's legend: in a corner, saying it is heart rate in bpm, with each zone's colour,
    /// whole inside the picture, at @1x, @2x and @3x, both themes; a thumbnail too small for one
    /// has none.
    @Test(arguments: Theme.shipped, [1, 2, 3])
    func theHeatmapExplainsItsColours(theme: Theme, scale: Int) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let spec = MapFixtures.spec(.heatmap, theme, basemap: basemap, scale: scale)
        let (image, _, _) = try MapFixtures.draw(spec, run, renderer: renderer)
        let legend = try #require(renderer.legendBox)
        let xs = Int(legend.minX)..<Int(legend.maxX)
        let ys = Int(legend.minY)..<Int(legend.maxY)
        for colour in HeatmapStyle.standard.zoneColors {
            #expect(image.count(colour, tolerance: 0, x: xs, y: ys) >= 16 * scale * scale, "swatch \(colour)")
        }
        #expect(legend.maxX - legend.minX < Float(spec.pixelWidth) / 3)
        #expect(legend.minX >= 0 && legend.minY >= 0)
        #expect(legend.maxX <= Float(spec.pixelWidth) && legend.maxY <= Float(spec.pixelHeight))
        // The title, the widest line, fits inside the box's padding, and its ink is drawn in the top row.
        #expect(Renderer.legendTitle == "Heart rate (bpm)")
        let font = try #require(renderer.mapFonts()?.main)
        let size = Int((Renderer.legendTextSize * Double(scale)).rounded())
        let title = font.layout(Renderer.legendTitle, pixelSize: size)
        let padding = 4 * scale
        #expect(Int(legend.maxX - legend.minX) >= title.metrics.width + 2 * padding)
        let ink = try #require(spec.map?.attributionText)
        let titleRows = Int(legend.minY) + padding..<Int(legend.minY) + padding + title.metrics.height
        #expect(image.count(ink, tolerance: 24, x: xs, y: titleRows) >= 8 * scale, "title ink")
        #expect(Renderer.legendTexts(thresholds: [100, 140, 180]) == ["< 100", "100–139", "140–179", "180+"])
        let small = Fixtures.spec(kind: .heatmap, style: Fixtures.style(), heatmap: .standard)
        _ = try renderer.render(
            spec: small, route: Route(segments: [Fixtures.points(count: 41)]),
            heartRate: [HeartRateSample(time: Fixtures.epoch, bpm: 120)], cacheKey: "k")
        #expect(renderer.legendBox == nil)
    }
}

extension DecodedImage {
    /// The first pixel, row by row, of exactly `colour`.
    func find(_ colour: RGBA) -> (x: Int, y: Int)? {
        for y in 0..<height {
            for x in 0..<width where pixel(x: x, y: y) == colour { return (x, y) }
        }
        return nil
    }
}
