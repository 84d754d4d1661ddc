import Foundation
import Testing
import WorkFeedModel
@testable import WorkFeedRender
import WorkFeedStyle

@Suite struct HeatmapTests {
    /// 41 points one second apart along the horizontal fixture route, cut into 4 pieces of 10 s;
    /// samples every second (at half seconds, away from the cuts) at 90, 120, 160, 190 bpm.
    private let route = Route(segments: [Fixtures.points(count: 41)])
    private let samples = (0..<40).map { second in
        HeartRateSample(time: Fixtures.epoch.addingTimeInterval(Double(second) + 0.5), bpm: [90.0, 120, 160, 190][second / 10])
    }

    private func spec(outline: Double = 0) -> PictureSpec {
        var style = Fixtures.style()
        style.outlineWidth = outline
        var heatmap = HeatmapStyle.standard
        heatmap.segments = 4
        return Fixtures.spec(kind: .heatmap, style: style, heatmap: heatmap)
    }

    /// The zone colour at `opacity` over the fixture background, rounded as the renderer rounds.
    private func expected(zone: Int, opacity: Double) -> RGBA {
        let colour = HeatmapStyle.standard.zoneColors[zone]
        func mix(_ under: UInt8, _ over: UInt8) -> UInt8 {
            UInt8((Double(under) + (Double(over) - Double(under)) * opacity).rounded())
        }
        let bg = Fixtures.background
        return RGBA(red: mix(bg.red, colour.red), green: mix(bg.green, colour.green), blue: mix(bg.blue, colour.blue))
    }

    private func close(_ a: RGBA, _ b: RGBA) -> Bool {
        abs(Int(a.red) - Int(b.red)) <= 1 && abs(Int(a.green) - Int(b.green)) <= 1 && abs(Int(a.blue) - Int(b.blue)) <= 1
    }

    @Test func pieceColoursFollowTheZoneRule() throws {
        let image = try Fixtures.render(spec(), route, heartRate: samples)
        // Pieces span x = 20-35, 35-50, 50-65, 65-80; sample each piece's middle on the line.
        // One opacity per zone (the colour's own, opaque): a zone reads the same wherever it is.
        let cases: [(x: Int, zone: Int, opacity: Double)] = [
            (27, 0, 1),  // 90 bpm: zone 0 is below 100
            (42, 1, 1),  // 120 bpm: zone 1 spans 100-140
            (57, 2, 1),  // 160 bpm: zone 2 spans 140-180
            (72, 3, 1),  // 190 bpm: the top zone
        ]
        for item in cases {
            let actual = image.pixel(x: item.x, y: 50)
            #expect(close(actual, expected(zone: item.zone, opacity: item.opacity)), "x \(item.x): \(actual)")
        }
        #expect(image.pixel(x: 50, y: 10) == Fixtures.background)
    }

    @Test func piecesMeetAtASquareCut() throws {
        let image = try Fixtures.render(spec(), route, heartRate: samples)
        // The cut between piece 1 and 2 is at x = 50: a pixel on either side, near the line's
        // edge, has its own piece's colour (a round cap would bulge across).
        #expect(close(image.pixel(x: 48, y: 48), expected(zone: 1, opacity: 1)))
        #expect(close(image.pixel(x: 51, y: 48), expected(zone: 2, opacity: 1)))
    }

    @Test func heatmapLineWidthComesFromTheHeatmapStyle() throws {
        let image = try Fixtures.render(spec(), route, heartRate: samples)
        // Width 8: half width 4, so row 53 (centre 53.5) is covered and row 55 is not.
        #expect(image.pixel(x: 42, y: 53) != Fixtures.background)
        #expect(image.pixel(x: 42, y: 55) == Fixtures.background)
    }

    @Test func laterPiecesCoverEarlierOnes() throws {
        // Out along y = 50 and back the same way: the way back (high rate) is on top.
        var points = Fixtures.points(count: 21)
        points += Fixtures.points(from: 0.01, to: 0, count: 21, startSecond: 20).dropFirst()
        let samples = (0..<40).map { second in
            HeartRateSample(time: Fixtures.epoch.addingTimeInterval(Double(second) + 0.5), bpm: second < 20 ? 90 : 190)
        }
        var heatmap = HeatmapStyle.standard
        heatmap.segments = 2
        let image = try Fixtures.render(
            Fixtures.spec(kind: .heatmap, style: spec().style, heatmap: heatmap), Route(segments: [points]), heartRate: samples)
        #expect(close(image.pixel(x: 40, y: 50), expected(zone: 3, opacity: 1)))
    }

    @Test func samplesOutsideTheRouteAreIgnored() throws {
        let extra =
            [HeartRateSample(time: Fixtures.epoch.addingTimeInterval(-100), bpm: 40)]
            + samples + [HeartRateSample(time: Fixtures.epoch.addingTimeInterval(500), bpm: 250)]
        let renderer = Renderer()
        let plain = try renderer.render(spec: spec(), route: route, heartRate: samples, cacheKey: "k")
        let padded = try renderer.render(spec: spec(), route: route, heartRate: extra, cacheKey: "k")
        #expect(plain == padded)
        // Unsorted samples give the same picture.
        let shuffled = try renderer.render(spec: spec(), route: route, heartRate: samples.reversed(), cacheKey: "k")
        #expect(plain == shuffled)
    }

    @Test func sparseSamplesAreInterpolated() throws {
        let series = HeartRateSeries(
            samples: [
                HeartRateSample(time: Date(timeIntervalSinceReferenceDate: 0), bpm: 100),
                HeartRateSample(time: Date(timeIntervalSinceReferenceDate: 10), bpm: 140),
            ],
            span: 0...10)
        #expect(series.average(from: 4, to: 6) == 120)
        #expect(series.average(from: 0, to: 10) == 120)
        #expect(series.average(from: 9.5, to: 10) == 140)
        let oneSided = HeartRateSeries(samples: [HeartRateSample(time: Date(timeIntervalSinceReferenceDate: 8), bpm: 150)], span: 0...10)
        #expect(oneSided.average(from: 1, to: 2) == 150)
    }

    @Test(arguments: [
        (59.0, 0), (80.0, 0), (100.0, 1), (139.0, 1), (140.0, 2), (180.0, 3), (200.0, 3), (260.0, 3),
    ])
    func oneColourAndOpacityPerZone(bpm: Double, zone: Int) throws {
        let zones = try #require(HeartRateZones(style: .standard))
        #expect(zones.zone(for: bpm) == zone)
        // The zone's colour at its own opacity, whatever the rate inside the zone.
        let paint = zones.paint(for: bpm)
        #expect(paint.opacity == 1)
        #expect(paint.red == Float(HeatmapStyle.standard.zoneColors[zone].red))
    }

    @Test func zonesRejectInconsistentStyles() {
        #expect(
            HeartRateZones(
                style: HeatmapStyle(
                    segments: 50, lineWidth: 8, thresholds: [140, 100], zoneColors: Array(repeating: .init(red: 0, green: 0, blue: 0), count: 3)))
                == nil)
        #expect(
            HeartRateZones(style: HeatmapStyle(segments: 50, lineWidth: 8, thresholds: [], zoneColors: [.init(red: 0, green: 0, blue: 0)])) == nil)
    }
}
