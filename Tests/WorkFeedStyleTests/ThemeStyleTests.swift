import Foundation
import Testing
import WorkFeedModel
import WorkFeedStyle

/// Themes and map styles as data: a theme is a name, a map style is tables keyed by area, line,
/// road class and label kind, and the shipped styles encode exactly as they did before the tables.
@Suite struct ThemeStyleTests {
    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    /// The SHA-256 of the shipped map styles' JSON as the 30-property `MapStyle` wrote it (commit
    /// 38660e5): the same bytes in every spec, so the same cache keys, and no picture redrawn.
    @Test func theShippedStylesEncodeAsBeforeTheTables() throws {
        #expect(SHA256.hex(try Self.json(MapStyle.light)) == "61c9570b4ce7110b4314a7d9f58d5aa700f946fcb05fbbb0a59013cc1c832134")
        #expect(SHA256.hex(try Self.json(MapStyle.dark)) == "16aaff5e874cd7f145c39e53ac14b56935264541e37524b9514f2666bc50d515")
        #expect(SHA256.hex(try Self.json(RouteStyle.light)) == "b65723d4fcb26df67d192940c04def5b7a57d49c96dfbf3647358aaf4fc9f156")
        #expect(SHA256.hex(try Self.json(RouteStyle.dark)) == "6ff3dd0787214de6243126a7a41bc1c16fe323b9d851bd2c38611031edfbc7fd")
        for style in [MapStyle.light, .dark] {
            #expect(try JSONDecoder().decode(MapStyle.self, from: Data(try Self.json(style))) == style)
        }
    }

    /// Every area, line, road class and label kind has its own entry in each shipped style: one
    /// key each in the JSON, each a colour the style names (not the stand-in for a missing one).
    @Test(arguments: [MapStyle.light, .dark])
    func theTablesCoverEveryAreaLineRoadAndLabelKind(style: MapStyle) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try Self.json(style))) as? [String: Any])
        let expected =
            Set(MapArea.allCases.map(\.rawValue) + MapLine.allCases.map(\.rawValue) + RoadClass.allCases.map(\.rawValue))
            .union(["land", "attributionText", "attributionBackground", "attributionSize", "labels"])
        #expect(Set(object.keys) == expected)
        let missing = RGBA(red: 255, green: 0, blue: 255)
        for area in MapArea.allCases { #expect(style[area] != missing, "\(area)") }
        for line in MapLine.allCases { #expect(style[line].color != missing && style[line].width.isValid, "\(line)") }
        for road in RoadClass.allCases {
            #expect(style[road].fill != missing && style[road].casing != missing && style[road].width.isValid, "\(road)")
        }
        let kinds = (object["labels"] as? [String: Any])?["kinds"] as? [[String: Any]]
        #expect(kinds?.compactMap { $0["kind"] as? String } == MapLabelKind.allCases.map(\.rawValue), "in allCases order")
        for kind in MapLabelKind.allCases {
            #expect(style.labels[kind].kind == kind)
            #expect(style.labels[kind].size > 0 && style.labels[kind].show, "\(kind)")
        }
        // Light and dark differ in every area: neither is the other inverted or copied.
        let other = style == .light ? MapStyle.dark : MapStyle.light
        for area in MapArea.allCases { #expect(style[area] != other[area], "\(area)") }
    }

    /// Setting one entry changes that entry alone.
    @Test func aTableEntryIsSetAlone() {
        var style = MapStyle.light
        let purple = RGBA(hex: "#3a1f5c")!
        style[MapArea.wood] = purple
        style.labels[.peak].color = purple
        for area in MapArea.allCases { #expect((style[area] == purple) == (area == .wood), "\(area)") }
        for kind in MapLabelKind.allCases { #expect((style.labels[kind].color == purple) == (kind == .peak), "\(kind)") }
        #expect(CaseTable<MapArea, Int>([.wood: 1]) == nil, "a literal must name every area")
    }

    /// A theme is a name that can stand in file names and URLs; the shipped two are data too.
    @Test func themeNames() throws {
        for good in ["light", "dark", "sepia", "high-contrast", "a", "x1", String(repeating: "a", count: 32)] {
            #expect(Theme(rawValue: good) != nil, "\(good)")
        }
        for bad in ["", "Light", "sep_ia", "1dark", "-x", "a.b", "a/b", "a@2x", "sépia", String(repeating: "a", count: 33)] {
            #expect(Theme(rawValue: bad) == nil, "\(bad)")
        }
        #expect(try JSONDecoder().decode([Theme].self, from: Data(#"["light","sepia"]"#.utf8)) == [.light, Theme(rawValue: "sepia")!])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Theme].self, from: Data(#"["../x"]"#.utf8)) }
        #expect(Array(try Self.json([Theme.dark])) == Array(#"["dark"]"#.utf8))
        #expect(Set(ThemeStyle.shipped.keys) == Set(Theme.shipped + Theme.shippedOnRequest))
        // A third theme's pictures are named like the others', and found again from the name.
        let picture = PictureID(workoutID: WorkoutID(UUID()), kind: .heatmap, theme: Theme(rawValue: "sepia")!, scale: 2)
        let path = CacheLayout.relativePath(for: picture)
        #expect(path.hasSuffix("_heartrate_sepia@2x.png"))
        #expect(CacheLayout.picture(atRelativePath: path) == picture)
    }
}
