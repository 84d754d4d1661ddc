import Foundation
import Testing
import WorkFeedConfig
import WorkFeedModel
import WorkFeedStyle

/// Themes are configuration: a third one is declared in the file alone, and a key for a theme or
/// an area that does not exist stops the start with a suggestion.
@Suite struct ThemeConfigurationTests {
    func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-themes-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The error loading `text` gives, or `nil` when it loads.
    func refusal(_ text: String) async throws -> ConfigurationError? {
        let path = try file(text)
        do {
            _ = try await CoordinatorConfiguration.load(file: path, environment: [:])
            return nil
        } catch {
            return error
        }
    }

    static let sepia = """
        themes: [light, dark, sepia]
        styles:
          sepia: { from: light, background: "#f1e7d0", line: "#8b3a1a" }
        maps:
          sepia:
            from: light
            land: "#eadcc0"
            water: "#9dbdb8"
            roads:
              motorway: { fill: "#f3d9a4" }
            labels:
              city: { color: "#4a3520" }

        """

    @Test func aThirdThemeIsDeclaredByConfigurationAlone() async throws {
        let loaded = try await CoordinatorConfiguration.load(file: try file(Self.sepia), environment: [:])
        let sepia = try #require(Theme(rawValue: "sepia"))
        #expect(loaded.themes == [.light, .dark, sepia])
        let style = try #require(loaded.themeStyle(for: sepia))
        #expect(style.route.background == RGBA(hex: "#f1e7d0"))
        #expect(style.route.line == RGBA(hex: "#8b3a1a"))
        #expect(style.route.endMark == RouteStyle.light.endMark, "the rest from light, as asked")
        #expect(style.map.land == RGBA(hex: "#eadcc0"))
        #expect(style.map[MapArea.water] == RGBA(hex: "#9dbdb8"))
        #expect(style.map[MapArea.wood] == MapStyle.light[MapArea.wood])
        #expect(style.map[RoadClass.motorway].fill == RGBA(hex: "#f3d9a4"))
        #expect(style.map[RoadClass.motorway].width == MapStyle.light[RoadClass.motorway].width)
        #expect(style.map.labels[.city].color == RGBA(hex: "#4a3520"))
        // Light and dark are untouched.
        #expect(loaded.themeStyle(for: .light) == ThemeStyle.shipped[.light])
        #expect(loaded.themeStyle(for: .dark) == ThemeStyle.shipped[.dark])
        #expect(loaded.themeStyle(for: Theme(rawValue: "mauve")!) == nil)
    }

    /// `from` may name a theme listed earlier, with the values configured for it.
    @Test func aThemeStartsFromAnEarlierConfiguredOne() async throws {
        let text =
            Self.sepia.replacingOccurrences(of: "[light, dark, sepia]", with: "[light, dark, sepia, night-sepia]")
            .replacingOccurrences(of: "line: \"#8b3a1a\" }", with: "line: \"#8b3a1a\" }\n  night-sepia: { from: sepia }")
            + "  night-sepia: { from: sepia, land: \"#2a2218\" }\n"
        let loaded = try await CoordinatorConfiguration.load(file: try file(text), environment: [:])
        let night = try #require(loaded.themeStyle(for: Theme(rawValue: "night-sepia")!))
        #expect(night.map.land == RGBA(hex: "#2a2218"))
        #expect(night.map[MapArea.water] == RGBA(hex: "#9dbdb8"), "sepia's configured water")
        #expect(night.route.background == RGBA(hex: "#f1e7d0"), "sepia's configured background")
    }

    /// A theme with no shipped values must say where it starts, or give every key: it is never
    /// drawn in another theme's colours unasked.
    @Test func aNewThemeWithoutFromOrEveryKeyIsRefused() async throws {
        let error = try #require(try await refusal("themes: [light, dark, sepia]\nmaps:\n  sepia:\n    land: '#eadcc0'\n"))
        #expect(error.key == "styles.sepia.from")
        #expect(error.allowed.contains("has no shipped values"), "\(error)")
        let mapError = try #require(
            try await refusal("themes: [light, sepia]\nstyles:\n  sepia: { from: light }\nmaps:\n  sepia:\n    land: '#eadcc0'\n"))
        #expect(mapError.key == "maps.sepia.from")
        #expect(mapError.allowed.contains("maps.sepia.farmland"), "names a missing key: \(mapError)")
        let selfish = try #require(try await refusal("themes: [sepia]\nstyles:\n  sepia: { from: sepia }\n"))
        #expect(selfish.key == "styles.sepia.from")
        let later = try #require(try await refusal("themes: [sepia, later]\nstyles:\n  sepia: { from: later }\n"))
        #expect(later.key == "styles.sepia.from", "only a theme listed before it")
        for bad in ["themes: [light, Light]", "themes: [light, light]", "themes: [light, sep_ia]", "themes: []"] {
            #expect(try await refusal(bad)?.key == "themes", "\(bad)")
        }
    }

    /// Keys under `maps.` and `styles.` are checked against the configured themes and the tables'
    /// keys, with the nearest known key or section suggested.
    @Test(arguments: [
        (
            "maps:\n  sepia:\n    land: '#eadcc0'\n", "maps.sepia",
            "'sepia' is not one of the configured themes (themes and on_request_themes: light, dark, transparent)"
        ),
        ("styles:\n  sepia:\n    line: '#eadcc0'\n", "styles.sepia", "list it in one to draw it"),
        ("maps:\n  lihgt:\n    water: '#000000'\n", "maps.lihgt", "did you mean 'maps.light'?"),
        ("maps:\n  light:\n    wodo: '#000000'\n", "maps.light.wodo", "did you mean 'maps.light.wood'"),
        ("maps:\n  dark:\n    roads:\n      motorwya: { fill: '#000000' }\n", "maps.dark.roads.motorwya", "'maps.dark.roads.motorway'"),
        ("maps:\n  dark:\n    roads:\n      primary: { fil: '#000000' }\n", "maps.dark.roads.primary.fil", "'maps.dark.roads.primary.fill'"),
        ("maps:\n  light:\n    labels:\n      vilage: { size: 12 }\n", "maps.light.labels.vilage", "'maps.light.labels.village'"),
        ("maps:\n  light:\n    rivr: { color: '#000000' }\n", "maps.light.rivr", "'maps.light.river'"),
        ("themes: [light, dark, sepia]\nmaps:\n  sepia: { from: light, lnad: '#000000' }\n", "maps.sepia.lnad", "'maps.sepia.land'"),
    ])
    func unknownKeysAreRefusedWithASuggestion(text: String, key: String, suggestion: String) async throws {
        let error = try #require(try await refusal(text), "accepted \(key)")
        #expect(error.key == key)
        #expect(error.allowed.contains(suggestion), "\(error.allowed)")
        #expect(error.file?.contains(":") == true, "names the file and line")
    }

    /// A theme listed with its keys in the environment (WORKFEED_THEMES) is drawn too; its name is checked.
    @Test func themesMayComeFromTheEnvironment() async throws {
        let loaded = try await CoordinatorConfiguration.load(
            file: nil, environment: ["WORKFEED_THEMES": "dark", "WORKFEED_STYLES_DARK_LINE": "#ff0000"])
        #expect(loaded.themes == [.dark])
        #expect(loaded.themeStyle(for: .light) == nil)
        #expect(loaded.themeStyle(for: .dark)?.route.line == RGBA(hex: "#ff0000"))
    }
}

/// A theme without `from` that gives every key: drawn from its own values alone.
@Suite struct CompleteThemeTests {
    /// A valid value for each key of a theme's sections, by what the key is.
    static func value(_ key: String) -> String {
        let name = key.split(separator: ".").last.map(String.init) ?? key
        switch name {
        case "width", "casing_width": return "12,1,18,4"
        case "show": return "true"
        case "size": return key.hasSuffix("attribution.size") ? "10" : "12"
        case "min_zoom": return "0"
        case "max_zoom": return "22"
        case "halo_width", "outline_width": return "1"
        case "line_width", "mark_radius": return "4"
        case "padding": return "24"
        case "minimum_span_metres": return "600"
        default: return "#123456"
        }
    }

    @Test func aThemeGivingEveryKeyNeedsNoFrom() async throws {
        let keys = CoordinatorConfiguration.keys(themes: [Theme(rawValue: "mono")!])
            .filter { ($0.hasPrefix("styles.mono.") || $0.hasPrefix("maps.mono.")) && !$0.hasSuffix(".from") }
        var environment = ["WORKFEED_THEMES": "light,mono"]
        for key in keys { environment[Settings.environmentName(key)] = Self.value(key) }
        let loaded = try await CoordinatorConfiguration.load(file: nil, environment: environment)
        let mono = try #require(loaded.themeStyle(for: Theme(rawValue: "mono")!))
        let colour = RGBA(hex: "#123456")!
        #expect(mono.map.land == colour && mono.route.background == colour && mono.route.line == colour)
        for area in MapArea.allCases { #expect(mono.map[area] == colour, "\(area): its own value, nothing of light's") }
        for road in RoadClass.allCases { #expect(mono.map[road].fill == colour && mono.map[road].width.stops == [12, 1, 18, 4]) }
        for kind in MapLabelKind.allCases { #expect(mono.map.labels[kind].color == colour && mono.map.labels[kind].size == 12) }

        // One key fewer: refused, naming it.
        let dropped = try #require(keys.first { $0.hasSuffix("maps.mono.wood") })
        environment[Settings.environmentName(dropped)] = nil
        do {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: environment)
            Issue.record("accepted a theme missing \(dropped)")
        } catch {
            #expect(error.key == "maps.mono.from")
            #expect(error.allowed.contains("(maps.mono.wood is missing)"), "\(error.allowed)")
        }
    }

    /// The transparent theme is drawn on request as shipped, with its see-through background; a
    /// theme may be drawn ahead or on request, not both, and the shipped file says the same.
    @Test func transparentIsDrawnOnRequest() async throws {
        let shipped = try await CoordinatorConfiguration.load(file: nil, environment: [:])
        #expect(shipped.themes == [.light, .dark] && shipped.onRequestThemes == [.transparent])
        #expect(shipped.drawnThemes == [.light, .dark, .transparent])
        #expect(shipped.themeStyle(for: .transparent)?.route.isSeeThrough == true)
        let configFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Config/coordinator.yaml").path
        let fromFile = try await CoordinatorConfiguration.load(file: configFile, environment: [:])
        #expect(fromFile.onRequestThemes == shipped.onRequestThemes && fromFile.themeStyles == shipped.themeStyles)

        let both = try #require(try await ThemeConfigurationTests().refusal("themes: [light, dark, transparent]\n"))
        #expect(both.key == "on_request_themes" && both.allowed.contains("transparent is in themes too"), "\(both)")
        let ahead = try await CoordinatorConfiguration.load(
            file: try ThemeConfigurationTests().file("themes: [light, transparent]\non_request_themes: []\n"), environment: [:])
        #expect(ahead.drawnThemes == [.light, .transparent])
    }
}
