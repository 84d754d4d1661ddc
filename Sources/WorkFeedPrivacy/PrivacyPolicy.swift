import Foundation
public import WorkFeedModel

/// What an owner's route pictures must not show (issue 16): the surroundings of their privacy
/// zones and the first and last metres of every route. ``cut(_:workoutID:)`` applies it to a
/// route; docs/privacy.md explains the method.
///
/// Every cut position carries secret jitter so that the hidden place cannot be read off the
/// pictures (Hassan, Hussain and Bates, USENIX Security 2018: a route's ends cluster around the
/// zone, and with an exact circle the cut edge traces it). The jitter comes from ``secret``
/// through HMAC-SHA-256 and is the same every time, never fresh per picture: fresh noise would
/// average away over many pictures, fixed noise does not.
///
/// - ``hiddenCircle(for:)``: each zone is hidden as a larger circle whose centre is moved by
///   ``centreOffsetFraction`` of the radius in a secret direction, and whose radius grows by the
///   move plus a secret ``radiusMarginFraction``, so that it always contains the owner's circle.
/// - Per workout and zone, the cut moves a secret distance farther along the route on each side
///   of the hidden circle (``crossingExtraFraction``), so that cut points of many workouts do not
///   lie on one circle.
/// - Per workout, the end trim is a secret distance in ``endTrimMetres`` times
///   ``endTrimJitter``, separately at the start and at the end.
///
/// Same policy, route and workout id: the same visible route, bit for bit.
public struct PrivacyPolicy: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The owner's zones. Their order and ids do not matter.
    public var zones: [PrivacyZone]
    /// Metres hidden at each end of every route, before jitter (Strava-style "hide start and
    /// end"); 0 for none.
    public var endTrimMetres: Double
    /// The server's secret, at least ``minimumSecretBytes`` bytes. Whoever holds it and knows a
    /// zone's centre can compute the jitter; whoever lacks it learns only a bigger, shifted
    /// circle. Changing it moves every cut, so every picture with a cut must be drawn again, and
    /// old and new pictures together give an observer two samples (docs/privacy.md).
    public var secret: [UInt8]

    /// How far a zone's hidden circle is moved, as a fraction of the zone's radius. Routes that
    /// start at the centre have first visible points whose mean lies about half this distance
    /// from the centre in the secret direction, however many pictures are averaged.
    public static let centreOffsetFraction: ClosedRange<Double> = 0.3...0.5
    /// What the hidden circle's radius has beyond the owner's circle and the move, as a fraction
    /// of the radius. Its lower bound also absorbs the flat geometry's scale error.
    public static let radiusMarginFraction: ClosedRange<Double> = 0.05...0.25
    /// How far along the route, as a fraction of the zone's radius, the cut moves beyond the
    /// hidden circle on each side, per workout and zone.
    public static let crossingExtraFraction: ClosedRange<Double> = 0...0.5
    /// The factor on ``endTrimMetres``, per workout and end.
    public static let endTrimJitter: ClosedRange<Double> = 1...1.5
    /// The shortest secret accepted: 128 bits.
    public static let minimumSecretBytes = 16
    /// The end trims an owner or operator may set, in metres.
    public static let endTrimRange: ClosedRange<Double> = 0...5000

    public init(zones: [PrivacyZone] = [], endTrimMetres: Double = 0, secret: [UInt8]) {
        self.zones = zones
        self.endTrimMetres = endTrimMetres
        self.secret = secret
    }

    /// Whether the policy leaves every route as it is: no zones and no end trim. Such a policy
    /// has no ``fingerprint`` and needs no secret.
    public var hidesNothing: Bool { zones.isEmpty && endTrimMetres == 0 }

    /// Refuses a policy that could not hide safely: a zone off the globe or with a radius
    /// outside ``PrivacyZone/radiusRange``, an end trim outside ``endTrimRange``, or a secret
    /// shorter than ``minimumSecretBytes`` (without a secret, whoever guesses a centre can
    /// check the guess against the jitter). ``cut(_:workoutID:)`` hides the whole route under a
    /// policy that fails this, so call it where the policy is configured.
    /// - Throws: ``ValueRangeError`` naming the field, e.g. `zones[2].radius`.
    public func validate() throws(ValueRangeError) {
        if hidesNothing { return }
        guard endTrimMetres.isFinite, Self.endTrimRange.contains(endTrimMetres) else {
            throw ValueRangeError(
                field: "endTrimMetres",
                message: "\(endTrimMetres) m is outside \(Self.endTrimRange.lowerBound)...\(Self.endTrimRange.upperBound) m"
            )
        }
        guard secret.count >= Self.minimumSecretBytes else {
            // The secret's length only, never its bytes.
            throw ValueRangeError(field: "secret", message: "is \(secret.count) bytes, at least \(Self.minimumSecretBytes) are needed")
        }
        for (index, zone) in zones.enumerated() {
            do {
                try zone.validate()
            } catch {
                throw ValueRangeError(field: "zones[\(index)].\(error.field)", message: error.message)
            }
        }
    }

    /// The circle that pictures hide for `zone`: its centre moved a secret distance
    /// (``centreOffsetFraction`` of the radius) in a secret direction, its radius the zone's
    /// plus that distance plus a secret margin (``radiusMarginFraction``). It contains the whole
    /// of the zone's circle, and it is the same on every call, for every workout and picture.
    public func hiddenCircle(for zone: PrivacyZone) -> HiddenCircle {
        let radius = Self.effectiveRadius(zone)
        let draw = secretUniforms("zone\n\(zone.canonicalText)")
        let offset = radius * Self.value(in: Self.centreOffsetFraction, at: draw[0])
        let bearing = 2 * Double.pi * draw[1]
        let margin = radius * Self.value(in: Self.radiusMarginFraction, at: draw[2])
        let centre = LocalPlane(latitude: zone.latitude, longitude: zone.longitude)
            .coordinates(of: SIMD2(offset * sin(bearing), offset * cos(bearing)))
        return HiddenCircle(latitude: centre.latitude, longitude: centre.longitude, radius: radius + offset + margin)
    }

    /// The policy as it applies to a route within `bounds`: the end trim, and only the zones
    /// whose hidden circle can meet such a route (``HiddenCircle/mayMeet(_:)``). A zone left out
    /// changes nothing of the route's cut, so the pictures' keys hold this policy's
    /// ``fingerprint``, not the whole one: a zone added far away leaves them as they are
    /// (docs/privacy.md, "Which pictures a zone changes"). `nil` bounds (a box not known) keep
    /// every zone.
    public func meeting(_ bounds: RouteBounds?) -> PrivacyPolicy {
        guard let bounds, !zones.isEmpty else { return self }
        var policy = self
        policy.zones = circles(meeting: bounds).map(\.zone)
        return policy
    }

    /// The zones ``meeting(_:)`` keeps, each with its hidden circle, derived once.
    func circles(meeting bounds: RouteBounds) -> [(zone: PrivacyZone, circle: HiddenCircle)] {
        zones.map { ($0, hiddenCircle(for: $0)) }.filter { $0.circle.mayMeet(bounds) }
    }

    /// A short name of everything the policy hides with, for cache keys: 16 hex digits of an
    /// HMAC under ``secret`` over the end trim and the zones' centres and radii (sorted, without
    /// ids). It changes when the secret, the trim or any zone changes, and reveals none of them:
    /// without the secret it cannot be checked against a guessed home. `""` when the policy
    /// ``hidesNothing``, so that owners without zones keep their pictures' keys.
    public var fingerprint: String {
        if hidesNothing { return "" }
        let zoneLines = Set(zones.map(\.canonicalText)).sorted()
        let text = (["fingerprint", "trim=\(endTrimMetres + 0)"] + zoneLines).joined(separator: "\n")
        return secretBytes(text).prefix(8).hexString
    }

    public var description: String {
        // Neither the secret nor the zones' places: a policy may end up in a log.
        "PrivacyPolicy(\(zones.count) zone(s), end trim \(endTrimMetres) m, fingerprint \(fingerprint.isEmpty ? "none" : fingerprint))"
    }

    public var debugDescription: String { description }

    // MARK: Secret numbers

    /// The radius the geometry uses: the zone's, brought into ``PrivacyZone/radiusRange`` so
    /// that a stored value out of range still hides at least the smallest zone.
    static func effectiveRadius(_ zone: PrivacyZone) -> Double {
        zone.radius.isFinite
            ? min(max(zone.radius, PrivacyZone.radiusRange.lowerBound), PrivacyZone.radiusRange.upperBound) : PrivacyZone.radiusRange.upperBound
    }

    /// HMAC-SHA-256 under the secret of a versioned label: changing the labels or the way
    /// numbers are drawn from them moves every cut, like a new secret (docs/privacy.md).
    func secretBytes(_ label: String) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array("workfeed-privacy-v1\n\(label)".utf8), key: secret)
    }

    /// Four numbers in [0, 1) that only the holder of the secret can compute for `label`, each
    /// from 53 bits of the HMAC.
    func secretUniforms(_ label: String) -> [Double] {
        let bytes = secretBytes(label)
        return (0..<4).map { word in
            let bits = bytes[8 * word..<8 * word + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Double(bits >> 11) / Double(UInt64(1) << 53)
        }
    }

    static func value(in range: ClosedRange<Double>, at fraction: Double) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * fraction
    }
}

/// The circle a picture hides for one privacy zone (``PrivacyPolicy/hiddenCircle(for:)``).
public struct HiddenCircle: Sendable, Hashable {
    /// Degrees north of the centre.
    public var latitude: Double
    /// Degrees east of the centre.
    public var longitude: Double
    /// Metres.
    public var radius: Double

    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Whether a route within `bounds` can have a point or a step inside the circle, in the
    /// geometry the cut uses (``LocalPlane`` around the centre, where the circle's latitudes and
    /// longitudes are a box of half-sides radius over metres per degree north and east). A step
    /// lies in the box of its ends, so a route whose box misses the circle's, by more than a
    /// metre of rounding, has nothing inside it. Longitudes are compared a turn either way, for a
    /// circle by the antimeridian.
    public func mayMeet(_ bounds: RouteBounds) -> Bool {
        let reach = radius + 1
        let plane = LocalPlane(latitude: latitude, longitude: longitude)
        let north = reach / LocalPlane.metresPerDegree
        guard bounds.south <= latitude + north, bounds.north >= latitude - north else { return false }
        let east = reach / plane.metresPerDegreeEast
        if east >= 180 { return true }
        return [-360.0, 0, 360].contains { turn in
            bounds.west + turn <= longitude + east && bounds.east + turn >= longitude - east
        }
    }
}
