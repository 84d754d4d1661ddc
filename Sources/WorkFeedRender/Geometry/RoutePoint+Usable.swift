import WorkFeedModel

extension RoutePoint {
    /// "Null island": the 0/0 that a broken GPS fix or a missing value often turns into.
    var isNullIsland: Bool { latitude == 0 && longitude == 0 }

    /// Whether the point is drawn: valid coordinates, and not 0/0 when the route has real points.
    @inline(__always)
    func isUsable(droppingNullIsland: Bool) -> Bool {
        isValidCoordinate && !(droppingNullIsland && isNullIsland)
    }
}
