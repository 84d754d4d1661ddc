import Foundation
import Testing
import Logging
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStyle

@Suite struct ConfigurationTests {
    /// A configuration file in a temporary directory.
    func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-config-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func theShippedFilesLoadAndEqualTheEmbeddedDefaults() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let coordinator = try await CoordinatorConfiguration.load(file: root.appendingPathComponent("Config/coordinator.yaml").path, environment: [:])
        #expect(coordinator == CoordinatorConfiguration.defaults)
        let worker = try await WorkerConfiguration.load(file: root.appendingPathComponent("Config/worker.yaml").path, environment: [:])
        #expect(worker == WorkerConfiguration())
    }

    @Test func flagsBeatEnvironmentBeatFileBeatDefaults() async throws {
        let path = try file("index:\n  path: from-file.sqlite\ncache:\n  directory: file-cache\nheartbeat:\n  interval_ms: 700\n")
        let loaded = try await CoordinatorConfiguration.load(
            file: path,
            environment: ["WORKFEED_CACHE_DIRECTORY": "env-cache", "WORKFEED_HEARTBEAT_INTERVAL_MS": "900"],
            overrides: ["heartbeat.interval_ms": "1100"])
        #expect(loaded.indexPath == "from-file.sqlite")
        #expect(loaded.cacheDirectory == "env-cache")
        #expect(loaded.heartbeatIntervalMilliseconds == 1100)
        #expect(loaded.heartbeatLiveness == CoordinatorConfiguration.defaults.heartbeatLiveness)
    }

    /// A size the renderer cannot draw at one of the configured scales stops the start, instead
    /// of every job of that scale failing later.
    @Test func aPictureSizeMustFitTheRendererAtEveryConfiguredScale() async throws {
        let fits = try await CoordinatorConfiguration.load(file: try file("pictures:\n  width: 1024\n  scales: [1, 2]\n"), environment: [:])
        #expect(fits.pictureWidth == 1024)
        let tooWide = try file("pictures:\n  width: 1200\n  scales: [1, 2]\n"), scaleFour = try file("pictures:\n  scales: [4]\n")
        do {
            _ = try await CoordinatorConfiguration.load(file: tooWide, environment: [:])
            Issue.record("accepted 1200 points at scale 2")
        } catch {
            #expect(error.key == "pictures.width")
            #expect(error.description.contains("2400 pixels") && error.description.contains("at most 1024"))
        }
        do {
            _ = try await CoordinatorConfiguration.load(file: scaleFour, environment: [:])
            Issue.record("accepted scale 4")
        } catch {
            #expect(error.key == "pictures.scales")
        }
    }

    /// Where an owner's maximum heart rate puts their zones (docs/settings.md): the five-zone
    /// model's percentages by default, fitted to the heatmap's number of zones; given ones are
    /// checked against it, and a heatmap of more than five zones must give them.
    @Test func maximumHeartRatePercentagesFitTheHeatmapsZones() async throws {
        #expect(CoordinatorConfiguration.defaults.maximumHeartRatePercentages == [70, 80, 90])
        let fiveZones = try await CoordinatorConfiguration.load(
            file: try file("heatmap:\n  thresholds: [100, 120, 140, 160]\n  colors: ['#000000', '#111111', '#222222', '#333333', '#444444']\n"),
            environment: [:])
        #expect(fiveZones.maximumHeartRatePercentages == [60, 70, 80, 90])
        let given = try await CoordinatorConfiguration.load(file: try file("heatmap:\n  max_hr_percentages: [65, 78, 91]\n"), environment: [:])
        #expect(given.maximumHeartRatePercentages == [65, 78, 91])
        for text in [
            "heatmap:\n  max_hr_percentages: [70, 80]\n", "heatmap:\n  max_hr_percentages: [80, 70, 90]\n",
            "heatmap:\n  max_hr_percentages: [70, 70.5, 90]\n", "heatmap:\n  max_hr_percentages: [20, 80, 90]\n",
            "heatmap:\n  thresholds: [90, 100, 120, 140, 160]\n  colors: ['#000000', '#111111', '#222222', '#333333', '#444444', '#555555']\n",
        ] {
            let path = try file(text)
            do {
                _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.key == "heatmap.max_hr_percentages", "\(text)")
            }
        }
    }

    /// Choices are typed once, when the file is read: nothing parses them again with a silent
    /// fallback (issue 15).
    @Test func choicesAreTypedValuesAfterValidation() async throws {
        let loaded = try await CoordinatorConfiguration.load(
            file: try file("index:\n  durability: normal\nlog:\n  level: notice\n  format: json\n"), environment: [:])
        #expect(loaded.durability == .normal && loaded.logLevel == .notice && loaded.logFormat == .json)
        let worker = try await WorkerConfiguration.load(file: try file("log:\n  level: trace\n"), environment: [:])
        #expect(worker.logLevel == .trace && worker.logFormat == .text)
        let sometimes = try file("index:\n  durability: sometimes\n")
        do {
            _ = try await CoordinatorConfiguration.load(file: sometimes, environment: [:])
            Issue.record("accepted durability: sometimes")
        } catch {
            #expect(error.key == "index.durability" && error.description.contains("full"))
        }
    }

    @Test func aBadValueNamesTheKeyTheValueWhatIsAllowedAndWhereItCameFrom() async throws {
        let path = try file("pictures:\n  width: huge\n")
        do {
            _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
            Issue.record("accepted width: huge")
        } catch {
            #expect(error.key == "pictures.width")
            #expect(error.value == "huge")
            #expect(error.description.contains("a whole number from 16 to 2048"))
            #expect(error.file == path)
        }
        do {
            _ = try await WorkerConfiguration.load(file: nil, environment: ["WORKFEED_RENDER_THREADS": "-1"])
            Issue.record("accepted -1 threads")
        } catch {
            #expect(error.key == "render_threads")
            #expect(error.file == "environment variable WORKFEED_RENDER_THREADS")
        }
    }

    /// `basemap.tilesets` takes files, `https://` URLs and `s3://bucket/key`; anything else stops
    /// the load naming the key and the entry.
    @Test func tilesetsAreFilesOrURLs() async throws {
        let good = try file(
            "basemap:\n  tilesets: [maps/a.mbtiles, 'https://maps.example.org/planet.pmtiles', 's3://workfeed-maps/planet.pmtiles']\n")
        #expect(
            try await WorkerConfiguration.load(file: good, environment: [:]).basemapTilesets == [
                "maps/a.mbtiles", "https://maps.example.org/planet.pmtiles", "s3://workfeed-maps/planet.pmtiles",
            ])
        for (entry, problem) in [
            ("ftp://maps.example.org/a.pmtiles", "has the scheme 'ftp'"), ("s3://workfeed-maps/", "names no object"),
            ("s3://Bad_Bucket/a.pmtiles", "names the bucket 'Bad_Bucket'"), ("https:///a.pmtiles", "is not a URL with a host"),
        ] {
            let path = try file("basemap:\n  tilesets: ['\(entry)']\n")
            do {
                _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
                Issue.record("accepted \(entry)")
            } catch {
                #expect(error.key == "basemap.tilesets")
                #expect(error.value == entry)
                #expect(error.description.contains(problem), "\(error)")
            }
        }
    }

    @Test func anUnknownKeyIsATypoAndStopsTheLoad() async throws {
        let path = try file("heartbeat:\n  intervall_ms: 5\n")
        await #expect(throws: ConfigurationError.self) { try await CoordinatorConfiguration.load(file: path, environment: [:]) }
        do {
            _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
        } catch {
            #expect(error.key == "heartbeat.intervall_ms")
            #expect(error.file?.hasPrefix(path + ":") == true)
        }
    }

    @Test func stylesAndZonesAreChecked() async throws {
        let colours = try file("styles:\n  dark:\n    line: '#12345'\n")
        await #expect(throws: ConfigurationError.self) { try await CoordinatorConfiguration.load(file: colours, environment: [:]) }
        let zones = try file("heatmap:\n  thresholds: [100, 140]\n")
        do {
            _ = try await CoordinatorConfiguration.load(file: zones, environment: [:])
            Issue.record("accepted 2 thresholds with 4 colours")
        } catch {
            #expect(error.key == "heatmap.colors")
        }
        let good = try file("styles:\n  dark:\n    line: '#ff0000'\n    outline_width: 0\n")
        let loaded = try await CoordinatorConfiguration.load(file: good, environment: [:])
        #expect(loaded.themeStyle(for: .dark)?.route.line == RGBA(hex: "#ff0000"))
        #expect(loaded.themeStyle(for: .dark)?.route.outlineWidth == 0)
        #expect(loaded.themeStyle(for: .light)?.route == RouteStyle.light)
    }

    /// Names on the map are part of each theme's map style: sizes, colours, which kinds show and at
    /// which zooms, each key checked.
    @Test func mapNamesAreConfiguredPerThemeAndChecked() async throws {
        let good = try file(
            "maps:\n  dark:\n    labels:\n      halo: '#000000'\n      city: { size: 18, color: '#ffcc00' }\n      path: { show: false }\n")
        let loaded = try await CoordinatorConfiguration.load(file: good, environment: [:])
        let dark = try #require(loaded.themeStyle(for: .dark)?.map)
        #expect(dark.labels.halo == RGBA(hex: "#000000"))
        #expect(dark.labels[.city].size == 18)
        #expect(dark.labels[.city].color == RGBA(hex: "#ffcc00"))
        #expect(dark.labels[.path].show == false)
        #expect(dark.labels[.town] == MapStyle.dark.labels[.town])
        #expect(loaded.themeStyle(for: .light)?.map == MapStyle.light)
        for (text, key) in [
            ("maps:\n  light:\n    labels:\n      city: { size: 100 }\n", "maps.light.labels.city.size"),
            ("maps:\n  light:\n    labels:\n      park: { min_zoom: 16, max_zoom: 12 }\n", "maps.light.labels.park.max_zoom"),
            ("maps:\n  light:\n    labels:\n      peak: { show: maybe }\n", "maps.light.labels.peak.show"),
            ("maps:\n  light:\n    labels:\n      castle: { size: 12 }\n", "maps.light.labels.castle"),
        ] {
            let path = try file(text)
            do {
                _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
                Issue.record("accepted \(key)")
            } catch {
                #expect(error.key == key, "\(text)")
            }
        }
    }
}
