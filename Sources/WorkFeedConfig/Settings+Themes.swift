import Configuration
import WorkFeedModel
import WorkFeedStyle

/// The themes a coordinator draws, as configuration declares them: `themes` lists them, and each
/// one's look is `styles.<theme>.*` (the route) and `maps.<theme>.*` (the basemap), data like any
/// other setting; `on_request_themes` lists those drawn only when a request names one (the shipped
/// `transparent`). Nothing that draws names a theme but the shipped values of `light`, `dark` and
/// `transparent` (``ThemeStyle/shipped``); adding one is adding it to the configuration
/// (docs/maps.md, "Themes"). (The feed pages show `light` and `dark`, by the reader's colour scheme.)
extension Settings {
    /// The key that lists the themes drawn ahead.
    static let themesKey = "themes"
    /// The key that lists the themes drawn only when asked for.
    static let onRequestThemesKey = "on_request_themes"

    /// `themes`: the themes pictures are drawn in ahead, in order; by default the shipped light and dark.
    func themeList() throws(ConfigurationError) -> [Theme] {
        let themes = try themeNames(Self.themesKey, default: Theme.shipped)
        guard !themes.isEmpty else { throw invalid(Self.themesKey, "", "at least one theme, such as [light, dark]") }
        return themes
    }

    /// `on_request_themes`: the themes drawn only when a request names one; by default the shipped
    /// transparent. None of them may be in `themes` too.
    func onRequestThemeList(drawnAhead: [Theme]) throws(ConfigurationError) -> [Theme] {
        let themes = try themeNames(Self.onRequestThemesKey, default: Theme.shippedOnRequest)
        if let both = themes.first(where: drawnAhead.contains) {
            throw invalid(
                Self.onRequestThemesKey, themes.map(\.rawValue).joined(separator: ","),
                "themes not drawn ahead: \(both.rawValue) is in themes too (a theme is drawn ahead or on request, not both)")
        }
        return themes
    }

    private func themeNames(_ key: String, default shipped: [Theme]) throws(ConfigurationError) -> [Theme] {
        let texts = strings(key, default: shipped.map(\.rawValue))
        var themes: [Theme] = []
        for text in texts {
            guard let theme = Theme(rawValue: text), !themes.contains(theme) else {
                throw invalid(key, texts.joined(separator: ","), "theme names, each once, each \(Theme.rule)")
            }
            themes.append(theme)
        }
        return themes
    }

    /// Each theme's route and map style, in the order of `themes`.
    ///
    /// A section starts from the values named by its `from` key (a shipped theme, or a theme
    /// listed earlier, with the values configured for it), else from the shipped values of a theme
    /// of the same name; a theme with neither must give every key of the section. Never from
    /// another theme unasked: a new theme is not quietly drawn in dark's colours.
    func themeStyles(_ themes: [Theme]) throws(ConfigurationError) -> [Theme: ThemeStyle] {
        var styles: [Theme: ThemeStyle] = [:]
        for theme in themes {
            let route = try start("styles", theme, keyNames: RouteStyle.keyNames, made: styles) { $0.route }
            let map = try start("maps", theme, keyNames: MapStyle.keyNames, made: styles) { $0.map }
            styles[theme] = ThemeStyle(
                route: try routeStyle("styles.\(theme.rawValue)", default: route),
                map: try mapStyle("maps.\(theme.rawValue)", default: map))
        }
        return styles
    }

    /// What a theme's section (`styles.sepia`, `maps.sepia`) starts from, before its own keys.
    private func start<Style>(
        _ section: String, _ theme: Theme, keyNames: [String], made: [Theme: ThemeStyle], _ part: (ThemeStyle) -> Style
    ) throws(ConfigurationError) -> Style {
        let prefix = "\(section).\(theme.rawValue)"
        let fromKey = "\(prefix).\(Self.fromKey)"
        let startable = (ThemeStyle.shipped.keys.filter { made[$0] == nil } + made.keys).map(\.rawValue).sorted()
        if let name = raw(fromKey) {
            guard let from = Theme(rawValue: name), let style = made[from] ?? ThemeStyle.shipped[from], from != theme else {
                throw invalid(
                    fromKey, name,
                    "a theme to start from: one listed before \(theme.rawValue) in themes, or a shipped one (\(startable.joined(separator: ", ")))")
            }
            return part(style)
        }
        if let shipped = ThemeStyle.shipped[theme] { return part(shipped) }
        let missing = keyNames.filter { !has("\(prefix).\($0)") }
        // Every key given: each value below is replaced by the theme's own, whatever they start as.
        guard let first = missing.first else { return part(ThemeStyle(route: .light, map: .light)) }
        throw invalid(
            fromKey, "",
            "theme \(theme.rawValue) has no shipped values: name one to start from (\(fromKey): \(startable.first ?? "light"); any of \(startable.joined(separator: ", "))) or give every \(prefix) key (\(prefix).\(first)\(missing.count > 1 ? " and \(missing.count - 1) more are" : " is") missing)"
        )
    }

    /// The key under `styles.<theme>` and `maps.<theme>` that names what the section starts from.
    static let fromKey = "from"

    /// The keys a configuration with these themes may hold under `styles.` and `maps.`.
    static func themeKeys(_ themes: [Theme]) -> Set<String> {
        var keys: Set<String> = [themesKey, onRequestThemesKey]
        for theme in themes {
            for name in RouteStyle.keyNames + [fromKey] { keys.insert("styles.\(theme.rawValue).\(name)") }
            for name in MapStyle.keyNames + [fromKey] { keys.insert("maps.\(theme.rawValue).\(name)") }
        }
        return keys
    }

    /// Whether any source gives `key` a value (text or a list).
    func has(_ key: String) -> Bool {
        raw(key) != nil || reader.stringArray(forKey: ConfigKey(key.split(separator: ".").map(String.init))) != nil
    }

    /// One theme's route style under `prefix` (`styles.light`), every key optional.
    func routeStyle(_ prefix: String, default style: RouteStyle) throws(ConfigurationError) -> RouteStyle {
        var s = style
        s.background = try colour("\(prefix).background", default: s.background)
        s.line = try colour("\(prefix).line", default: s.line)
        s.lineWidth = try double("\(prefix).line_width", default: s.lineWidth, in: 0.5...64)
        s.outline = try colour("\(prefix).outline", default: s.outline)
        s.outlineWidth = try double("\(prefix).outline_width", default: s.outlineWidth, in: 0...32)
        s.startMark = try colour("\(prefix).start_mark", default: s.startMark)
        s.endMark = try colour("\(prefix).end_mark", default: s.endMark)
        s.markRadius = try double("\(prefix).mark_radius", default: s.markRadius, in: 0...64)
        s.padding = try double("\(prefix).padding", default: s.padding, in: 0...512)
        s.minimumSpan = try double("\(prefix).minimum_span_metres", default: s.minimumSpan, in: 0...100_000)
        return s
    }
}

extension RouteStyle {
    /// The configuration keys of one theme's route style, under `styles.<theme>.`.
    static let keyNames = [
        "background", "line", "line_width", "outline", "outline_width", "start_mark", "end_mark", "mark_radius", "padding",
        "minimum_span_metres",
    ]
}
