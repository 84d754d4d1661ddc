public import WorkFeedModel
/// What one theme looks like: the route's style and the basemap's. A theme is this value under a
/// name (``Theme``); the coordinator's configuration holds one per configured theme
/// (`styles.<theme>.*`, `maps.<theme>.*`), and nothing else in the system knows a theme's colours.
public struct ThemeStyle: Sendable, Hashable {
    public var route: RouteStyle
    public var map: MapStyle

    public init(route: RouteStyle, map: MapStyle) {
        self.route = route
        self.map = map
    }

    /// The themes the shipped configuration declares, with their values: what `styles.light.*`
    /// and `maps.light.*` (and dark's) start from, and what a theme's `from: light` copies.
    public static let shipped: [Theme: ThemeStyle] = [
        .light: ThemeStyle(route: .light, map: .light),
        .dark: ThemeStyle(route: .dark, map: .dark),
        // A see-through background is never drawn with a map (``RouteStyle/isSeeThrough``): its
        // map style is there for a theme that starts `from: transparent` and makes it opaque.
        .transparent: ThemeStyle(route: .transparent, map: .dark),
    ]
}
