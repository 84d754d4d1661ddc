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
import WorkFeedStyle

/// A theme added by configuration alone, through the whole system: listed in a configuration
/// file with its styles, it is requested, drawn by a real worker, stored and listed like light and
/// dark; taken out again, its jobs fail with a code instead of being drawn in another theme.
@Suite(.serialized) struct ThemeSystemTests {
    static let sepia = Theme(rawValue: "sepia")!
    /// Sepia's land, wood and residential land use: most of the run's picture (a forest by a town).
    static let sepiaGround = ["#eadcc0", "#bcc791", "#e3d4b6"].map { RGBA(hex: $0)! }

    /// The test's configuration file: a third theme, its values from light's and its own colours.
    static let configurationText = """
        themes: [light, dark, sepia]
        styles:
          sepia: { from: light, background: "#f1e7d0", line: "#8b3a1a", outline: "#fff8e8" }
        maps:
          sepia:
            from: light
            land: "#eadcc0"
            farmland: "#e6dcbc"
            grass: "#cfd3a0"
            wood: "#bcc791"
            park: "#c7cf98"
            cemetery: "#c7cf98"
            residential: "#e3d4b6"
            industrial: "#dccfb4"
            water: "#9dbdb8"
            building: "#d2bf9c"
            river: { color: "#9dbdb8" }
            stream: { color: "#9dbdb8" }
            roads:
              motorway: { fill: "#f3d9a4", casing: "#c9b48c" }
              trunk: { fill: "#f3d9a4", casing: "#c9b48c" }
              primary: { fill: "#f8ecd0", casing: "#d6c4a0" }
              secondary: { fill: "#f8ecd0", casing: "#d6c4a0" }
              tertiary: { fill: "#f8efdc" }
              minor: { fill: "#f8efdc" }
              service: { fill: "#efe4cc" }
              track: { fill: "#efe4cc" }
              path: { fill: "#efe4cc" }
            labels:
              halo: "#eadcc0"
              city: { color: "#4a3520" }
              town: { color: "#4a3520" }

        """

    static func sepiaConfiguration() async throws -> CoordinatorConfiguration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-sepia-\(UUID().uuidString).yaml")
        try configurationText.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await CoordinatorConfiguration.load(file: url.path, environment: [:])
    }

    /// The run's pictures by "theme scale".
    static func pictures(_ client: inout ControlClient) throws -> [String: PictureRecord] {
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 10))
        let item = try #require(feed.items.first)
        return Dictionary(uniqueKeysWithValues: item.pictures.map { ("\($0.picture.theme.rawValue) \($0.picture.scale)", $0) })
    }

    @Test func aThemeConfiguredInAFileIsRequestedDrawnAndStoredLikeLightAndDark() async throws {
        let configured = try await Self.sepiaConfiguration()
        let system = try RunningSystem(
            workers: 1,
            adjust: {
                $0.basemapTilesets = [MapSystemTests.heidelberg]
                $0.themes = configured.themes
                $0.themeStyles = configured.themeStyles
            }, adjustWorker: { $0.basemapTilesets = [MapSystemTests.heidelberg] })
        defer { system.stop() }
        var client = try system.client()
        _ = try MapSystemTests.importRun(&client)
        // No themes named: every configured theme.
        let every = EnqueueRequest(ids: nil, kinds: [.route], themes: [], scales: [1, 2])
        let reply: EnqueueReply = try client.request(.enqueue, every)
        #expect(reply.created == 6, "3 themes at 2 scales")
        let done = try MapSystemTests.waitUntilDone(&client)
        #expect(MapSystemTests.count(done, .generated) == 6)
        #expect(Set(done.counts.map(\.theme)) == [.light, .dark, Self.sepia])

        let pictures = try Self.pictures(&client)
        for scale in [1, 2] {
            var bytes: [String: [UInt8]] = [:]
            for theme in ["light", "dark", "sepia"] {
                let record = try #require(pictures["\(theme) \(scale)"])
                #expect(record.status == .generated && record.map == .full, "\(theme) @\(scale)x")
                #expect(record.relativePath.hasSuffix("_\(theme)\(scale == 1 ? "" : "@2x").png"))
                bytes[theme] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: system.configuration.cacheDirectory + "/" + record.relativePath)))
                // WORKFEED_LOOK=DIRECTORY keeps the pictures, to look at them.
                if let look = ProcessInfo.processInfo.environment["WORKFEED_LOOK"] {
                    try Data(bytes[theme]!).write(to: URL(fileURLWithPath: look).appendingPathComponent("theme-\(theme)@\(scale)x.png"))
                }
            }
            let sepia = try PNGCodec.decode(try #require(bytes["sepia"]))
            #expect(sepia.width == 512 * scale)
            #expect(bytes["sepia"] != bytes["light"] && bytes["sepia"] != bytes["dark"])
            // Sepia's ground covers most of the picture, and shows in neither of the others.
            let pixels = sepia.width * sepia.height
            let ground = { (image: DecodedImage) in Self.sepiaGround.reduce(0) { $0 + image.count($1, tolerance: 1) } }
            #expect(ground(sepia) > pixels / 2, "@\(scale)x: \(ground(sepia)) of \(pixels)")
            for other in ["light", "dark"] {
                let image = try PNGCodec.decode(try #require(bytes[other]))
                #expect(ground(image) < pixels / 200, "\(other) @\(scale)x has no sepia ground: \(ground(image))")
            }
        }

        // A theme the configuration does not list is refused, by code.
        do {
            let _: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [Theme(rawValue: "mauve")!]))
            Issue.record("enqueued a theme no configuration lists")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.description.contains("light, dark, sepia"), "\(error)")
        }
    }

    /// A theme taken out of the configuration: its waiting job is not drawn in another theme's
    /// colours but fails theme-not-configured, and it can no longer be asked for.
    @Test func aThemeTakenOutFailsItsJobsWithACode() async throws {
        let configured = try await Self.sepiaConfiguration()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try RunningSystem(
            workers: 0, directory: directory,
            adjust: {
                $0.themes = configured.themes
                $0.themeStyles = configured.themeStyles
            })
        var client = try first.client()
        _ = try MapSystemTests.importRun(&client)
        let asked: EnqueueReply = try client.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [Self.sepia, .light]))
        #expect(asked.created == 2)
        first.stop(keepingFiles: true)

        let second = try RunningSystem(workers: 1, directory: directory)
        defer { second.stop(keepingFiles: true) }
        var secondClient = try second.client()
        let done = try MapSystemTests.waitUntilDone(&secondClient)
        #expect(MapSystemTests.count(done, .generated) == 1)
        #expect(MapSystemTests.count(done, .failedNoRetry) == 1)
        let pictures = try Self.pictures(&secondClient)
        #expect(pictures["light 1"]?.status == .generated)
        let sepia = try #require(pictures["sepia 1"])
        #expect(sepia.status == .failedNoRetry && sepia.reasonCode == FailureCode.themeNotConfigured.rawValue)
        #expect(sepia.reason?.contains("light, dark") == true, "\(sepia.reason ?? "")")
        #expect(throws: ControlClientError.self) {
            let _: EnqueueReply = try secondClient.request(.enqueue, EnqueueRequest(ids: nil, kinds: [.route], themes: [Self.sepia]))
        }
    }

    /// `workctl render --config` draws a configured theme from the same configuration path the
    /// coordinator reads, and light and dark exactly as without it; a theme the file does not
    /// list is refused.
    @Test func workctlRenderDrawsAConfiguredThemeAndLightAndDarkAsBefore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-render-themes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("sepia.yaml")
        try Self.configurationText.write(to: configuration, atomically: true, encoding: .utf8)
        func render(_ arguments: [String]) async throws {
            var command = try WorkCtl.parseAsRoot(
                ["render", MapSystemTests.run.path, "--kind", "route", "--tileset", MapSystemTests.heidelberg, "--scale", "2"] + arguments)
            if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        }
        let configured = directory.appendingPathComponent("configured"), plain = directory.appendingPathComponent("plain")
        try await render(["--config", configuration.path, "--theme", "light,dark,sepia", "--out", configured.path])
        try await render(["--theme", "light,dark", "--out", plain.path])
        func bytes(_ folder: URL, _ theme: String) throws -> [UInt8] {
            try [UInt8](Data(contentsOf: folder.appendingPathComponent("runpandas_garmin-fr645m_run_2019_hr_route_\(theme)@2x.png")))
        }
        let sepia = try bytes(configured, "sepia")
        for theme in ["light", "dark"] {
            let drawn = try bytes(configured, theme)
            #expect(sepia != drawn)
            #expect(drawn == (try bytes(plain, theme)), "\(theme): the same bytes with a third theme configured")
        }
        await #expect(throws: (any Error).self) { try await render(["--theme", "sepia", "--out", plain.path]) }
    }
}
