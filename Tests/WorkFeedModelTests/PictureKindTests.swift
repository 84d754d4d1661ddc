import Foundation
import Testing
import WorkFeedModel

/// Issue 27, goal 1: a picture kind is one place. What sets a kind apart is its declaration
/// (`PictureKind.declaration`); everything else asks it. docs/architecture.md, "Adding a picture
/// kind", lists the files a new kind touches; these tests keep that list true.
@Suite struct PictureKindTests {
    /// The wire and SQL names, and what each kind is drawn from, as they were before the kind
    /// became a declaration: pictures, cache keys and file names stay the same.
    @Test func theKindsKeepTheirNamesAndNeeds() {
        #expect(PictureKind(rawValue: "route") == .route && PictureKind(rawValue: "heatmap") == .heatmap)
        #expect(PictureKind.route.needs == [.route] && !PictureKind.route.usesHeartRate && PictureKind.route.metric == nil)
        #expect(PictureKind.heatmap.needs == [.route, .heartRate] && PictureKind.heatmap.usesHeartRate)
        #expect(PictureKind.heatmap.metric == "heartrate")
        #expect(PictureKind(rawValue: "pace") == .pace && PictureKind(rawValue: "elevation") == .elevation)
        #expect(PictureKind.pace.needs == [.route, .times] && PictureKind.pace.metric == "pace" && PictureKind.pace.usesUnits)
        #expect(PictureKind.elevation.needs == [.route, .elevation] && PictureKind.elevation.metric == "elevation")
        #expect(!PictureKind.route.usesUnits && !PictureKind.heatmap.usesUnits && PictureKind.elevation.usesUnits)
        #expect(PictureKind.drawnAhead == [.route])
        #expect(PictureKind.share.needs == [.route] && PictureKind.share.usesHeartRate && PictureKind.share.usesUnits && PictureKind.share.isCard)
        #expect(PictureKind.story.declaration.size == ShareCardSize.story.points && PictureKind.share.declaration.size == ShareCardSize.post.points)
        #expect(ShareCardSize.allCases.map { $0.points.width * ShareCardSize.defaultScale } == [1080, 1080])
        #expect(ShareCardSize.allCases.map { $0.points.height * ShareCardSize.defaultScale } == [1350, 1920])
        #expect(!PictureKind.route.isCard && !PictureKind.heatmap.isCard)
        #expect(PictureKind.names() == "route, heatmap, pace, elevation, share or story")
    }

    /// Every declaration is complete: a name, words for the page and the help, the route among
    /// its needs (every picture is drawn along the route), a metric that fits a file name, and
    /// at least one kind drawn ahead of time (what an upload and `workctl enqueue` queue).
    @Test func everyDeclarationIsComplete() {
        var labels = Set<String>()
        for kind in PictureKind.allCases {
            let declaration = kind.declaration
            #expect(!declaration.summary.isEmpty && !declaration.drawing.isEmpty, "\(kind)")
            #expect(labels.insert(declaration.label).inserted, "\(kind): its label is another kind's")
            #expect(declaration.needs.contains(.route), "\(kind)")
            #expect(kind.rawValue.allSatisfy { $0.isLowercase && $0.isASCII }, "\(kind): its name is a URL path and SQL value")
            if let metric = declaration.metric { #expect(metric.allSatisfy { $0.isLowercase && $0.isASCII }, "\(kind)") }
            #expect(PictureKind.described.contains("\(kind.rawValue) (\(declaration.summary))"))
        }
        #expect(!PictureKind.drawnAhead.isEmpty)
    }

    /// A workout can have a kind when it has every input the kind needs: no route, no picture;
    /// no heart rate, no heatmap; no times, no pace; no climb, no elevation.
    @Test func aWorkoutCanHaveTheKindsItHasTheInputsFor() {
        let summary = WorkoutSummary(
            route: Route(segments: [[RoutePoint(latitude: 1, longitude: 2), RoutePoint(latitude: 1.001, longitude: 2)]]), heartRate: [],
            start: nil, end: nil)
        var record = WorkoutRecord(
            id: WorkoutID(UUID()), source: .gpx, sourceID: "a", activity: .running, name: nil, summary: summary, timeZoneOffset: nil,
            routeVersion: 1, routeHash: "r", heartRateHash: "h", anchor: 1)
        record.heartRateSamples = 0
        #expect(PictureKind.allCases.filter { $0.isPossible(for: record) } == [.route, .share, .story], "a card draws what there is")
        record.heartRateSamples = 12
        #expect(PictureKind.allCases.filter { $0.isPossible(for: record) } == [.route, .heatmap, .share, .story])
        record.start = Date(timeIntervalSince1970: 1_700_000_000)
        record.end = record.start
        #expect(PictureKind.allCases.filter { $0.isPossible(for: record) } == [.route, .heatmap, .share, .story], "no time spanned: no pace")
        record.end = record.start?.addingTimeInterval(600)
        record.elevationGain = 12
        #expect(PictureKind.allCases.filter { $0.isPossible(for: record) } == PictureKind.allCases)
        record.pointCount = 0
        #expect(PictureKind.allCases.filter { $0.isPossible(for: record) }.isEmpty)
    }

    /// docs/openapi.yaml lists the kinds where the API takes or gives one; each list is all of them.
    @Test func theAPIDocumentListsEveryKind() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: package.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let lists = document.components(separatedBy: "\n").filter { $0.contains("enum: [route") }
        #expect(lists.count >= 3)
        for line in lists {
            #expect(line.contains("enum: [\(PictureKind.allCases.map(\.rawValue).joined(separator: ", "))]"), "\(line)")
        }
    }

    /// The places that may name a kind: its declaration, the renderer's switch (how it is drawn),
    /// the index's switch over inputs (`PictureInput.route` has a kind's name) and the schema's
    /// history (migrations are never edited), and the benchmarks, which measure chosen kinds.
    /// Anywhere else, a `.heatmap`, a `PictureKind.route` or an SQL `'heatmap'` is a place a new
    /// kind would be missed: ask the kind instead (docs/architecture.md, "Adding a picture kind").
    static let placesThatNameKinds: Set<String> = [
        "Sources/WorkFeedModel/PictureKind.swift", "Sources/WorkFeedRender/Renderer.swift",
        "Sources/WorkFeedIndex/IndexTransaction+PictureWanted.swift", "Sources/WorkFeedIndex/WorkoutIndex+Schema.swift",
    ]

    @Test func onlyTheDeclaredPlacesNameAKind() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let names = PictureKind.allCases.map(\.rawValue).joined(separator: "|")
        // A bare `.pace` or `.elevation` is as often the measure (`RouteMeasure`, the feed's
        // `Measure`, `Quantity.elevation`) as the kind: those two are caught in their other forms.
        let measures = Set(RouteMeasure.allCases.map(\.rawValue))
        let bare = PictureKind.allCases.map(\.rawValue).filter { !measures.contains($0) }.joined(separator: "|")
        // `.heatmap` as an enum case (not `spec.heatmap`), `PictureKind.heatmap`, `'heatmap'` in
        // SQL, `"heatmap"` compared in JavaScript.
        let pattern = try NSRegularExpression(
            pattern: #"(?<![\w)\]?!])\.(\#(bare))\b|PictureKind\.(\#(names))\b|'(\#(names))'|=== "(\#(names))""#)
        var found: [String] = []
        var scanned = 0
        let sources = package.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where ["swift", "html"].contains(file.pathExtension) {
            let relative = String(file.path.dropFirst(package.path.count + 1))
            if Self.placesThatNameKinds.contains(relative) || relative.hasPrefix("Sources/workfeed-bench/") { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            scanned += 1
            for (number, line) in text.components(separatedBy: "\n").enumerated()
            where pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            {
                found.append("\(relative):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(scanned > 100, "the sources were read")
        #expect(found.isEmpty, "a kind named outside its declaration:\n\(found.joined(separator: "\n"))")
    }
}
