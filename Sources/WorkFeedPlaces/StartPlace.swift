public import WorkFeedModel

/// The populated place a route starts in (docs/places.md): the ``PlaceMap``'s place of its first
/// valid position. The one rule for the index (`workout.place`, from the route as stored, at
/// import and by the migrations that filled it for the workouts stored before: SQLite's v19,
/// PostgreSQL's pg8) and for the renderer (the name on a picture drawn without a map, from the
/// route it draws: after privacy zones cut it).
public enum StartPlace {
    /// The label (`Sluis, Zeeland`) of the route's start; `nil` for a route without a valid position
    /// (exactly 0°, 0° is a receiver without a fix, not a start), far from every place, or when the
    /// shipped places file cannot be read (the workout is stored without a place, never refused).
    public static func label(of route: Route, map: Result<PlaceMap, PlaceMapError> = PlaceMap.shipped) -> String? {
        guard case .success(let map) = map,
            let start = route.points.first(where: { $0.isValidCoordinate && !($0.latitude == 0 && $0.longitude == 0) })
        else { return nil }
        return map.place(latitude: start.latitude, longitude: start.longitude)?.label
    }

    /// The same for a stored route (``SeriesCodec``); `nil` for bytes that are not a route.
    public static func label(encodedRoute bytes: some Collection<UInt8>) -> String? {
        guard let route = try? SeriesCodec.decodeRoute(bytes) else { return nil }
        return label(of: route)
    }
}
