public import WorkFeedModel
/// A place whose surroundings an owner's route pictures never show: a home, a workplace, a
/// friend's house (issue 16). Pictures hide a larger circle than this one, moved and widened by
/// a secret (``PrivacyPolicy/hiddenCircle(for:)``), so that the cut does not trace this circle.
public struct PrivacyZone: Sendable, Hashable, Codable {
    /// The zone's row in the index. It plays no part in what is hidden: the same circle saved
    /// again under a new id keeps its secret jitter, so that re-creating a zone does not give an
    /// observer a second, independent sample of where it is.
    public var id: Int64
    /// Degrees north of the centre, -90...90.
    public var latitude: Double
    /// Degrees east of the centre, -180...180.
    public var longitude: Double
    /// Metres, within ``radiusRange``.
    public var radius: Double

    /// The radii an owner may choose: below 200 m a cut still points at one building; above
    /// 2 km the flat geometry of ``PrivacyPolicy`` is no longer exact enough, and more is better
    /// done with several zones.
    public static let radiusRange: ClosedRange<Double> = 200...2000

    /// The most zones an owner may have: enough for home, work and family; few enough that
    /// cutting a route stays cheap and the coordinator's policies stay small.
    public static let maximumPerOwner = 32

    public init(id: Int64, latitude: Double, longitude: Double, radius: Double) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Refuses a zone that is not on the globe or whose radius is outside ``radiusRange``.
    /// - Throws: ``ValueRangeError`` naming the field and its value.
    /// The latitude beyond which Web Mercator shows nothing (arctan(sinh(π)), 85.0511…°): a zone
    /// there would hide nothing on any picture, so none is accepted there.
    public static let maximumLatitude = 85.051_128_779_806_59

    public func validate() throws(ValueRangeError) {
        guard latitude.isFinite, (-Self.maximumLatitude...Self.maximumLatitude).contains(latitude) else {
            throw ValueRangeError(
                field: "latitude",
                message: "\(latitude) is outside -85.05...85.05 degrees (pictures are Web Mercator, which cannot show the poles)")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw ValueRangeError(field: "longitude", message: "\(longitude) is outside -180...180 degrees")
        }
        guard radius.isFinite, Self.radiusRange.contains(radius) else {
            throw ValueRangeError(
                field: "radius",
                message: "\(radius) m is outside \(Self.radiusRange.lowerBound)...\(Self.radiusRange.upperBound) m"
            )
        }
    }

    /// The zone as the secret derivations and the policy's fingerprint see it: centre and radius,
    /// not the id. Swift prints a `Double` as the shortest text that reads back as the same
    /// value, on every platform; adding 0 turns -0.0 into 0.0, the same place.
    var canonicalText: String {
        "lat=\(latitude + 0) lon=\(longitude + 0) radius=\(radius + 0)"
    }
}
