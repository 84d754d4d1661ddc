import ArgumentParser
import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedCtl
import WorkFeedModel
import WorkFeedRender
import WorkFeedWire
import WorkFeedWorker

/// An owner's heart-rate zones through the real coordinator and worker (docs/settings.md): set
/// with workctl, exactly that owner's heatmaps go stale and are drawn again in other colours, with
/// other keys; their route pictures and another owner's pictures keep theirs. On a real recording
/// (the Heidelberg run with heart rate, Tests/Data/tracks-in-map/SOURCES.md), imported for two owners.
@Suite(.serialized) struct OwnerSettingsSystemTests {
    /// Every picture of a workout by kind and theme.
    static func byPicture(_ pictures: [PictureRecord]) -> [String: PictureRecord] {
        Dictionary(uniqueKeysWithValues: pictures.map { ("\($0.picture.kind.rawValue) \($0.picture.theme.rawValue)", $0) })
    }

    static func decoded(_ system: RunningSystem, _ picture: PictureRecord) throws -> DecodedImage {
        try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + picture.relativePath))))
    }

    @Test func settingAnOwnersMaximumHeartRateRedrawsExactlyTheirHeatmaps() throws {
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        var client = try system.client()
        let alice = try PrivacyZoneTests.importRun(into: &client, owner: "alice")
        let bob = try PrivacyZoneTests.importRun(into: &client, owner: "bob")
        try PrivacyZoneTests.enqueueAll(&client, owner: "alice")
        try PrivacyZoneTests.enqueueAll(&client, owner: "bob")
        var worker = try system.startWorker(name: "first")
        let aliceBefore = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        let bobBefore = Self.byPicture(try PrivacyZoneTests.settled(&client, bob))
        #expect(aliceBefore.count == 4 && aliceBefore.values.allSatisfy { $0.status == .generated })
        #expect(bobBefore.count == 4 && bobBefore.values.allSatisfy { $0.status == .generated })
        // Same run, same zones, and still each owner's pictures are their own (the owner is in
        // the key: a zone one adds must not leave their old URL served by the other's picture).
        #expect(aliceBefore.keys.allSatisfy { aliceBefore[$0]?.cacheKey != bobBefore[$0]?.cacheKey })
        let heatmapsBefore = try ["heatmap light", "heatmap dark"].map { try Self.decoded(system, try #require(aliceBefore[$0])) }
        worker.stop()

        // Alice sets her maximum heart rate with workctl, and her units, time zone and first day.
        let unset: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice"))
        #expect(unset.settings.isEmpty && unset.heartRateZones == HeartRateZoneBounds(bounds: [100, 140, 180], source: .configured))
        var set = try WorkCtl.parseAsRoot([
            "settings", "set", "--owner", "alice", "--max-hr", "120", "--units", "imperial", "--time-zone", "Europe/Berlin",
            "--first-weekday", "sunday", "--coordinator", system.endpoints.control,
        ])
        try set.run()
        // workctl checks what it sends as the coordinator will, naming its own options.
        for arguments in [
            ["--max-hr", "300"], ["--max-hr", "190", "--zone-bounds", "120,140,160"], ["--zone-bounds", "140,120,160"],
            ["--time-zone", "Mars/Olympus"], ["--first-weekday", "someday"], ["--unset", "colour"], [],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") {
                try WorkCtl.parseAsRoot(["settings", "set", "--owner", "alice", "--coordinator", system.endpoints.control] + arguments)
            }
        }
        let shown: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice"))
        #expect(
            shown.settings
                == OwnerSettings(heartRateZones: .maximumHeartRate(120), units: .imperial, timeZone: "Europe/Berlin", firstWeekday: .sunday))
        // The configured heatmap has four zones: 70, 80 and 90 % of 120 bpm.
        #expect(shown.heartRateZones == HeartRateZoneBounds(bounds: [84, 96, 108], source: .maximumHeartRate))

        // Her heatmaps are pending, nothing else is: no worker is running to draw them yet.
        let aliceStale = Self.byPicture((try client.request(.show, ShowRequest(id: alice)) as ShowReply).item.pictures)
        #expect(aliceStale["heatmap light"]?.status == .pending && aliceStale["heatmap dark"]?.status == .pending)
        #expect(aliceStale["route light"]?.status == .generated && aliceStale["route dark"]?.status == .generated)
        let bobStill = Self.byPicture((try client.request(.show, ShowRequest(id: bob)) as ShowReply).item.pictures)
        #expect(bobStill.values.allSatisfy { $0.status == .generated })

        worker = try system.startWorker(name: "second")
        defer { worker.stop() }
        let aliceAfter = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        let bobAfter = Self.byPicture(try PrivacyZoneTests.settled(&client, bob))
        #expect(aliceAfter.values.allSatisfy { $0.status == .generated })
        for theme in ["light", "dark"] {
            // New keys for her heatmaps, drawn in other colours: every piece is in the top zone now.
            #expect(aliceAfter["heatmap \(theme)"]?.cacheKey != aliceBefore["heatmap \(theme)"]?.cacheKey)
            #expect(aliceAfter["route \(theme)"]?.cacheKey == aliceBefore["route \(theme)"]?.cacheKey)
        }
        #expect(bobAfter.mapValues(\.cacheKey) == bobBefore.mapValues(\.cacheKey))
        for (index, theme) in ["light", "dark"].enumerated() {
            let after = try Self.decoded(system, try #require(aliceAfter["heatmap \(theme)"]))
            let before = heatmapsBefore[index]
            #expect(after.width == before.width && after.height == before.height)
            var changed = 0
            for offset in stride(from: 0, to: min(after.rgba.count, before.rgba.count), by: 4)
            where after.rgba[offset..<offset + 3] != before.rgba[offset..<offset + 3] {
                changed += 1
            }
            print("owner settings: \(theme) heatmap, \(changed) of \(after.width * after.height) pixels changed colour with the owner's zones")
            #expect(changed > 500, "\(theme): the heatmap drawn with the owner's zones looks like the one before")
            // The key the worker wrote into the PNG is the new one.
            let png = try [UInt8](
                Data(
                    contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + (aliceAfter["heatmap \(theme)"]?.relativePath ?? ""))
                ))
            #expect(PNGCodec.textChunks(png)["workfeed:cache-key"] == aliceAfter["heatmap \(theme)"]?.cacheKey)
        }

        // Units, time zone and weekday change no picture; unsetting the zones brings the keys back.
        let units: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice", set: OwnerSettings(units: .metric)))
        #expect(units.stale == 0 && units.settings.heartRateZones == .maximumHeartRate(120) && units.settings.units == .metric)
        let reset: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice", unset: [.heartRateZones]))
        #expect(reset.stale == 2 && reset.heartRateZones.source == .configured)
        let restored = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(restored.mapValues(\.cacheKey) == aliceBefore.mapValues(\.cacheKey))

        // Bounds that do not fill the heatmap's four zones are refused, naming the field; nothing changes.
        let refused: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: "alice", set: OwnerSettings(heartRateZones: .bounds([120, 150])), replace: true))
        #expect(refused.refusal?.code == "bad-settings" && refused.refusal?.field == "heartRateZones.bounds")
        #expect(refused.refusal?.reason == SettingsError.Code.zoneCount.rawValue)
        #expect(refused.settings == reset.settings)
        // An owner who leaves takes their settings along.
        let _: DeleteReply = try client.request(.delete, DeleteRequest(ids: nil, owner: "alice"))
        #expect((try client.request(.settings, SettingsRequest(owner: "alice")) as SettingsReply).settings.isEmpty)
    }

    /// An owner's units are in their pace and elevation pictures' legends (docs/settings.md): a change
    /// of them redraws exactly those, their route pictures keep their keys, and going back to metric
    /// gives the first keys again (metric and unset draw the same picture).
    @Test func settingAnOwnersUnitsRedrawsExactlyTheirPaceAndElevationPictures() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        var client = try system.client()
        let alice = try PrivacyZoneTests.importRun(into: &client, owner: "alice")
        var request = EnqueueRequest(ids: nil, kinds: [.route, .pace, .elevation], themes: [.light])
        request.owner = "alice"
        let enqueued: EnqueueReply = try client.request(.enqueue, request)
        #expect(enqueued.created == 3)
        let metric = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(metric.count == 3 && metric.values.allSatisfy { $0.status == .generated }, "\(metric)")
        let paceBefore = try Self.decoded(system, try #require(metric["pace light"]))

        let imperial: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice", set: OwnerSettings(units: .imperial)))
        #expect(imperial.stale == 2)
        var after = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(after.values.allSatisfy { $0.status == .generated })
        #expect(after["route light"]?.cacheKey == metric["route light"]?.cacheKey)
        #expect(after["pace light"]?.cacheKey != metric["pace light"]?.cacheKey)
        #expect(after["elevation light"]?.cacheKey != metric["elevation light"]?.cacheKey)
        // The legend now says "/mi": the pixels differ, the route's colours with them or not.
        #expect(try Self.decoded(system, try #require(after["pace light"])).rgba != paceBefore.rgba)

        let back: SettingsReply = try client.request(.settings, SettingsRequest(owner: "alice", set: OwnerSettings(units: .metric)))
        #expect(back.stale == 2)
        after = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(after.mapValues(\.cacheKey) == metric.mapValues(\.cacheKey))
    }

    /// An owner's card figures are in their share cards' specs only: a change redraws exactly the
    /// cards, the route picture keeps its key, and every figure in the default order is unset's key.
    @Test func settingAnOwnersCardFiguresRedrawsExactlyTheirCards() throws {
        let system = try RunningSystem(workers: 1)
        defer { system.stop() }
        var client = try system.client()
        let alice = try PrivacyZoneTests.importRun(into: &client, owner: "alice")
        var request = EnqueueRequest(ids: nil, kinds: [.route, .share], themes: [.light])
        request.owner = "alice"
        let enqueued: EnqueueReply = try client.request(.enqueue, request)
        #expect(enqueued.created == 2)
        let all = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(all.count == 2 && all.values.allSatisfy { $0.status == .generated }, "\(all)")
        let cardBefore = try Self.decoded(system, try #require(all["share light"]))

        let chosen: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: "alice", set: OwnerSettings(cardFigures: [.distance, .pace])))
        #expect(chosen.stale == 1 && chosen.settings.cardFigures == [.distance, .pace])
        let after = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(after.values.allSatisfy { $0.status == .generated })
        #expect(after["route light"]?.cacheKey == all["route light"]?.cacheKey)
        #expect(after["share light"]?.cacheKey != all["share light"]?.cacheKey)
        #expect(try Self.decoded(system, try #require(after["share light"])).rgba != cardBefore.rgba, "two figures, not five")

        let every: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: "alice", set: OwnerSettings(cardFigures: ShareCardFigure.allCases)))
        #expect(every.stale == 1)
        #expect(Self.byPicture(try PrivacyZoneTests.settled(&client, alice)).mapValues(\.cacheKey) == all.mapValues(\.cacheKey))
    }

    /// A restarted coordinator reads the owners' zones back: their heatmaps stay current.
    @Test func anOwnersZonesSurviveARestartAndTheirHeatmapsStayCurrent() throws {
        // The first system outlives its client: its ZeroMQ context waits for every socket to close.
        let first = try RunningSystem(workers: 1)
        var client = try first.client()
        let alice = try PrivacyZoneTests.importRun(into: &client, owner: "alice")
        let set: SettingsReply = try client.request(
            .settings, SettingsRequest(owner: "alice", set: OwnerSettings(heartRateZones: .bounds([110, 130, 150]))))
        #expect(set.heartRateZones == HeartRateZoneBounds(bounds: [110, 130, 150], source: .bounds) && set.stale == 0)
        try PrivacyZoneTests.enqueueAll(&client, owner: "alice")
        let before = Self.byPicture(try PrivacyZoneTests.settled(&client, alice))
        #expect(before.count == 4 && before.values.allSatisfy { $0.status == .generated })
        first.stop(keepingFiles: true)

        let second = try RunningSystem(workers: 0, directory: first.directory)
        defer { second.stop() }
        var again = try second.client()
        let shown: SettingsReply = try again.request(.settings, SettingsRequest(owner: "alice"))
        #expect(shown.settings.heartRateZones == .bounds([110, 130, 150]) && shown.heartRateZones.source == .bounds)
        var request = EnqueueRequest(ids: nil, kinds: [.route, .heatmap], themes: [.light, .dark])
        request.owner = "alice"
        let enqueued: EnqueueReply = try again.request(.enqueue, request)
        #expect(enqueued.current == 4 && enqueued.stale == 0 && enqueued.created == 0)
    }
}
