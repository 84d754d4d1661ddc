/// The smallest latitude-longitude box that holds a route's valid points (``RoutePoint/isValidCoordinate``):
/// what tells, without the route, which privacy zones can change its pictures (docs/privacy.md,
/// "Which pictures a zone changes"). The index keeps it beside each workout's route hash, computed
/// from the route as stored (``SeriesCodec``'s 1e-7 degree), so that the box the index holds and
/// the box of the route a coordinator cuts are the same numbers.
///
/// Longitudes are not wrapped: a route that crosses the antimeridian spans nearly all of them,
/// which is a larger box than it needs, never a smaller one.
public struct RouteBounds: Sendable, Hashable {
    /// Degrees north: the least and the greatest latitude.
    public var south: Double
    public var north: Double
    /// Degrees east: the least and the greatest longitude.
    public var west: Double
    public var east: Double

    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// The box of the route's valid points; `nil` when it has none.
    public init?(_ route: Route) {
        var south = Double.infinity
        var west = Double.infinity
        var north = -Double.infinity
        var east = -Double.infinity
        for point in route.points where point.isValidCoordinate {
            south = min(south, point.latitude)
            north = max(north, point.latitude)
            west = min(west, point.longitude)
            east = max(east, point.longitude)
        }
        guard south <= north else { return nil }
        self.init(south: south, west: west, north: north, east: east)
    }

    /// The box of a stored route (``SeriesCodec/encode(_:)-(Route)``), as decoded: `nil` for a
    /// route without a valid point, or for bytes that are not a route.
    public init?(encodedRoute bytes: some Collection<UInt8>) {
        guard let route = try? SeriesCodec.decodeRoute(bytes) else { return nil }
        self.init(route)
    }

    /// The box as the index stores it (four nullable columns, in the order of ``columnNames``);
    /// `nil` unless all four are there and make a box.
    public init?(stored south: Double?, _ west: Double?, _ north: Double?, _ east: Double?) {
        guard let south, let west, let north, let east, south <= north, west <= east else { return nil }
        self.init(south: south, west: west, north: north, east: east)
    }

    /// The index's columns of a workout's route box, in the order of ``init(stored:_:_:_:)``.
    public static let columnNames = ["route_south", "route_west", "route_north", "route_east"]

    /// The four values in the order of ``columnNames``.
    public var stored: [Double] { [south, west, north, east] }
}
