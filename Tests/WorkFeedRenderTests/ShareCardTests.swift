import Foundation
import Testing
import WorkFeedIndex
import WorkFeedModel
import WorkFeedStyle

@testable import WorkFeedRender

/// Share cards (docs/rendering.md, "Share cards"), drawn from the real Heidelberg recordings on
/// the Heidelberg tileset, read back as a person would: their words by OCR (tesseract), their
/// boxes apart and inside the card.
@Suite struct ShareCardTests {
    static let units: [UnitSystem] = [.metric, .imperial]

    /// A `kind` card of `workout` as the coordinator specifies it for an owner of `units`.
    static func spec(
        _ kind: PictureKind, _ theme: Theme, _ workout: ImportedWorkout, units: UnitSystem, basemap: Basemap?
    ) throws
        -> PictureSpec
    {
        var spec = MapFixtures.spec(kind, theme, basemap: basemap, scale: ShareCardSize.defaultScale)
        let size = try #require(kind.declaration.size)
        spec.width = size.width
        spec.height = size.height
        spec.card = ShareCardText(figures: try PreparedImport(workout, owner: "alice").figures, activity: workout.activity, units: units)
        return spec
    }

    /// What tesseract reads in `png`, without spaces (it reads "234 m" as "234m" as often as not).
    static func read(_ png: [UInt8]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("share-card-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
        process.arguments = [file.path, "-", "--psm", "3"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: text, as: UTF8.self).filter { !$0.isWhitespace }
    }

    /// The Forerunner 645 run's card says what the watch says: its session's 5,839.77 m, 3,164.6 s
    /// of timer time (9:02 a kilometre, 14:32 a mile), 234 m of ascent and 130 bpm (fitparse), and
    /// its start, 15:22:05 UTC on Saturday 14 September 2019, in Heidelberg's summer time.
    @Test(arguments: ShareCardSize.allCases, Theme.shipped)
    func theCardsWordsReadBackAreTheWatchsFigures(size: ShareCardSize, theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let expected: [UnitSystem: [String]] = [
            .metric: ["5.84 km", "52:45", "9:02 /km", "234 m", "130 bpm", "Saturday, 14 September 2019 at 17:22"],
            .imperial: ["3.63 mi", "52:45", "14:32 /mi", "768 ft", "130 bpm", "Saturday, September 14, 2019 at 5:22 PM"],
        ]
        for units in Self.units {
            let spec = try Self.spec(size.kind, theme, run, units: units, basemap: basemap)
            let card = try #require(spec.card)
            #expect(card.figures.map(\.value) + [card.date ?? ""] == expected[units]!, "\(units)")
            let png = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card")
            let image = try PNGCodec.decode(png)
            #expect(image.width == 1080 && image.height == (size == .post ? 1350 : 1920))
            let text = try Self.read(png)
            #expect(card.place == "Heidelberg, Baden-Württemberg", "where it started (GeoNames)")
            for words in expected[units]! + ["Evening run", "Heidelberg", "Distance", "Moving time", "Pace", "Climb", "Avg heart rate"] {
                #expect(text.contains(words.filter { !$0.isWhitespace }), "\(size) \(theme) \(units): '\(words)' not read in \(text)")
            }
            #expect(renderer.lastStatistics.mapCoverage == .full, "the map drawn")
        }
    }

    /// Whatever the workout, size, theme or units, no word, bar or profile overlaps another, and
    /// each lies inside the card below its map; a title too long for one line is cut, not spilled.
    @Test(arguments: ShareCardSize.allCases, Theme.shipped)
    func noBoxOverlapsAnotherOrLeavesTheCard(size: ShareCardSize, theme: Theme) throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        var named = try MapFixtures.workout(MapFixtures.ride)
        named.name = "Along the Neckar to Neckargemünd and back over the Königstuhl, with a stop for coffee and cake at the top"
        for workout in [try MapFixtures.workout(MapFixtures.run), try MapFixtures.workout(MapFixtures.ride), named] {
            for units in Self.units {
                let spec = try Self.spec(size.kind, theme, workout, units: units, basemap: basemap)
                _ = try renderer.render(spec: spec, route: workout.route, heartRate: workout.heartRate, cacheKey: "card")
                let boxes = renderer.cardBoxes
                let label = "\(workout.name ?? "\(workout.activity)") \(size) \(theme) \(units)"
                #expect(boxes.count >= 8, "\(label): title, date and figures drawn")
                for (index, box) in boxes.enumerated() {
                    #expect(box.minX >= 0 && box.minY >= 0, "\(label): box \(index) leaves the card")
                    #expect(box.maxX <= Float(spec.pixelWidth) && box.maxY <= Float(spec.pixelHeight), "\(label): box \(index) leaves the card")
                    for other in boxes[(index + 1)...] { #expect(!box.intersects(other), "\(label): boxes overlap: \(box) \(other)") }
                }
            }
        }
    }

    /// A card draws what the workout has: the ride without heart rate has no zone bar, the run has
    /// one; a workout without a route is a card of words without a map, not a failure.
    @Test func aCardLeavesOutWhatTheWorkoutLacks() throws {
        let renderer = Renderer()
        let run = try MapFixtures.workout(MapFixtures.run)
        let ride = try MapFixtures.workout(MapFixtures.ride)
        let runSpec = try Self.spec(.share, .light, run, units: .metric, basemap: nil)
        _ = try renderer.render(spec: runSpec, route: run.route, heartRate: run.heartRate, cacheKey: "card")
        let withZones = renderer.cardBoxes.count
        let rideSpec = try Self.spec(.share, .light, ride, units: .metric, basemap: nil)
        _ = try renderer.render(spec: rideSpec, route: ride.route, heartRate: ride.heartRate, cacheKey: "card")
        // The ride: four figures (no heart rate) and no zone bar's title and bar.
        #expect(renderer.cardBoxes.count == withZones - 2 - 2)

        var empty = run
        empty.route = Route()
        let png = try renderer.render(spec: runSpec, route: empty.route, heartRate: [], cacheKey: "card")
        let image = try PNGCodec.decode(png)
        #expect(image.width == 1080 && image.height == 1350)
        #expect(try Self.read(png).contains("Eveningrun"))
    }

    /// The same inputs give the same bytes; another figure gives another card.
    @Test func aCardIsItsWords() throws {
        let renderer = Renderer()
        let run = try MapFixtures.workout(MapFixtures.run)
        var spec = try Self.spec(.share, .dark, run, units: .metric, basemap: nil)
        let first = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card")
        #expect(try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card") == first)
        spec.card?.title = "Königstuhl loop"
        #expect(try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card") != first)
        spec.card = nil
        #expect(throws: RenderFailure.missingCardText) {
            try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card")
        }
    }

    /// The transparent theme's card is the route and the words on nothing: its corners let the
    /// photo through, the route's line covers it, and laid over a dark photo its words read as the
    /// watch's. Laid over a colour, it is the same drawing made on that colour (to within the
    /// rounding of the two drawings it is made from); the same inputs give the same bytes.
    @Test func aTransparentCardLaysOverAPhoto() throws {
        let basemap = try MapFixtures.basemap()
        let renderer = Renderer(basemap: basemap)
        let run = try MapFixtures.workout(MapFixtures.run)
        let spec = try Self.spec(.share, .transparent, run, units: .metric, basemap: basemap)
        #expect(spec.map == nil && spec.basemap == nil, "a see-through card has no map")
        let png = try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card")
        #expect(try renderer.render(spec: spec, route: run.route, heartRate: run.heartRate, cacheKey: "card") == png)
        #expect(png[25] == 6, "colour type 6: RGBA")
        let image = try PNGCodec.decode(png)
        let alphas = stride(from: 3, to: image.rgba.count, by: 4).map { image.rgba[$0] }
        #expect(alphas[0] == 0 && alphas[image.width - 1] == 0 && alphas.last == 0, "the corners are see-through")
        let opaque = alphas.filter { $0 == 255 }.count, clear = alphas.filter { $0 == 0 }.count
        #expect(opaque > 10_000, "the route and the words cover what is under them: \(opaque) opaque pixels")
        #expect(clear > alphas.count / 2, "most of the card lets the photo through: \(clear) of \(alphas.count)")

        // Over the dark theme's background, the card reads as the watch's figures.
        let photo = RGBA(hex: "#1c1e21")!
        let over = Self.composite(image, over: photo)
        let text = try Self.read(try PNGCodec.encode(rgb: over, width: image.width, height: image.height))
        for words in ["Evening run", "5.84 km", "52:45", "9:02 /km", "234 m", "130 bpm"] {
            #expect(text.contains(words.filter { !$0.isWhitespace }), "'\(words)' not read in \(text)")
        }
        // The same drawing made on that colour (as the renderer makes it on black and on white).
        renderer.matte = photo
        var statistics = RenderStatistics()
        try renderer.draw(spec: spec, route: run.route, heartRate: run.heartRate, statistics: &statistics)
        renderer.matte = nil
        let drawn = Array(renderer.canvas.bytes)
        var largest = 0
        for index in 0..<(image.width * image.height) {
            for channel in 0..<3 { largest = max(largest, abs(Int(over[index * 3 + channel]) - Int(drawn[index * 3 + channel]))) }
        }
        #expect(largest <= 3, "laid over \(photo) it differs from the card drawn on it by \(largest) at most")
    }

    /// `image` laid over an opaque `colour`: RGB bytes.
    static func composite(_ image: DecodedImage, over colour: RGBA) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 3)
        let under = [colour.red, colour.green, colour.blue]
        for index in 0..<(image.width * image.height) {
            let alpha = Int(image.rgba[index * 4 + 3])
            for channel in 0..<3 {
                let value = Int(image.rgba[index * 4 + channel]) * alpha + Int(under[channel]) * (255 - alpha)
                out.append(UInt8((value + 127) / 255))
            }
        }
        return out
    }
}

/// The card's words, checked against a calendar and the feed's own figures.
@Suite struct ShareCardTextTests {
    @Test func datesAreTheWorkoutsLocalDayAndTime() {
        #expect(ShareCardText.date(localStart: "2019-09-14T17:22:05+02:00", units: .metric) == "Saturday, 14 September 2019 at 17:22")
        #expect(ShareCardText.date(localStart: "2026-12-07T00:05:00-05:00", units: .imperial) == "Monday, December 7, 2026 at 12:05 AM")
        #expect(ShareCardText.date(localStart: "2024-02-29T12:30:00Z", units: .imperial) == "Thursday, February 29, 2024 at 12:30 PM")
        #expect(ShareCardText.date(localStart: "2000-01-01T23:59:00+14:00", units: .metric) == "Saturday, 1 January 2000 at 23:59")
        #expect(ShareCardText.date(localStart: "not a time", units: .metric) == nil)
        #expect(ShareCardText.date(localStart: "2019-13-14T17:22:05+02:00", units: .metric) == nil)
    }

    /// The card's figures are the feed's, to the digit, for every real recording in the map.
    /// The owner's card figures pick the figures and their order; a figure the workout lacks stays
    /// out, and none chosen is a card without figures.
    @Test func theOwnersChoiceOfFiguresIsKept() throws {
        let run = try MapFixtures.workout(MapFixtures.run)
        let figures = try PreparedImport(run, owner: "alice").figures
        let chosen = ShareCardText(figures: figures, activity: run.activity, units: .metric, shown: [.heartRate, .distance, .climb])
        #expect(chosen.figures.map(\.value) == ["130 bpm", "5.84 km", "234 m"])
        #expect(chosen.figures.map(\.label) == ["Avg heart rate", "Distance", "Climb"])
        #expect(ShareCardText(figures: figures, activity: run.activity, units: .metric, shown: []).figures.isEmpty)
        let ride = try MapFixtures.workout(MapFixtures.ride)
        let rideCard = ShareCardText(
            figures: try PreparedImport(ride, owner: "alice").figures, activity: ride.activity, units: .metric, shown: [.heartRate, .pace])
        #expect(rideCard.figures.map(\.label) == ["Speed"], "the ride has no heart rate; its pace is a speed")
        #expect(
            ShareCardText(figures: figures, activity: run.activity, units: .metric, shown: ShareCardFigure.allCases)
                == ShareCardText(figures: figures, activity: run.activity, units: .metric))
    }

    @Test func theCardsFiguresAreTheFeeds() throws {
        for url in [MapFixtures.run, MapFixtures.ride, MapFixtures.zeeland] {
            let workout = try MapFixtures.workout(url)
            let prepared = try PreparedImport(workout, owner: "alice")
            var record = prepared.counted(WorkoutID(UUID()))
            record.name = workout.name
            record.timeZoneOffset = workout.timeZoneOffset
            for units in [UnitSystem.metric, .imperial] {
                let item = FeedItem(record: record, pictures: [], units: units, pictureSize: nil)
                let card = ShareCardText(figures: prepared.figures, activity: workout.activity, units: units)
                #expect(card.title == item.title)
                #expect(card.figures.first?.value == ShareCardText.distance(item.distance))
                if let pace = item.pace { #expect(card.figures.contains { $0.value == ShareCardText.pace(pace) }) }
                if let speed = item.speed { #expect(card.figures.contains { $0.value == ShareCardText.speed(speed) }) }
                if let climb = item.elevationGain { #expect(card.figures.contains { $0.value == ShareCardText.elevation(climb) }) }
                if let moving = item.movingTime ?? item.elapsedTime {
                    #expect(card.figures.contains { $0.value == ShareCardText.duration(moving) })
                }
            }
        }
    }
}
