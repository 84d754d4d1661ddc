import Foundation

/// Distinct workouts made from the fixture GPX files: each copy has its coordinates shifted (so its
/// route, hence its id, is its own), a name of its own, and for some the heart rate removed. What
/// each file must give is known from how it was made, not from what the system reports.
struct WorkoutFiles {
    enum Variant: String {
        /// A route with heart rate: every picture can be drawn.
        case heartRate = "hr"
        /// A route without heart rate: route pictures are drawn; no heatmap is queued for it.
        case noHeartRate = "nohr"
        /// Waypoints only, no route: every picture fails "no route".
        case waypointsOnly = "wpt"
    }

    struct Entry {
        var name: String
        var variant: Variant
        var file: URL
    }

    static let routeFixtures = [
        "strava_run_2015_short_gpxtpx-hr.gpx", "garmin-connect_ride_2020_short_ns3-hr.gpx", "apple-watch_run_2025_3seg_partial-hr.gpx",
    ]
    static let waypointFixture = "runkeeper_hr-on-waypoint.gpx"

    let directory: URL
    let entries: [Entry]

    /// Writes `routes` route workouts (every `withoutHeartRateEvery`-th without heart rate) and one
    /// waypoint-only file into `directory`.
    init(routes: Int, withoutHeartRateEvery: Int = 4, includeWaypointsOnly: Bool = true, into directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sources = try Self.routeFixtures.map { try Self.fixtureText($0) }
        var entries: [Entry] = []
        for number in 0..<routes {
            let variant: Variant =
                withoutHeartRateEvery > 0 && number % withoutHeartRateEvery == withoutHeartRateEvery - 1 ? .noHeartRate : .heartRate
            let name = String(format: "chaos-%05d-%@", number, variant.rawValue)
            var text = sources[number % sources.count]
            // Shifts of a few hundred metres to a few kilometres: distinct routes, still valid coordinates.
            let shift = (latitude: Double(number + 1) * 0.00173, longitude: Double(number + 1) * -0.00291)
            text = Self.shiftingCoordinates(text, by: shift)
            text = Self.renaming(text, to: name, inTrack: true)
            if variant == .noHeartRate { text = Self.removingExtensions(text) }
            let file = directory.appendingPathComponent("\(name).gpx")
            try Data(text.utf8).write(to: file)
            entries.append(Entry(name: name, variant: variant, file: file))
        }
        if includeWaypointsOnly {
            let name = "chaos-waypoints-wpt"
            let text = Self.renaming(try Self.fixtureText(Self.waypointFixture), to: name, inTrack: false)
            let file = directory.appendingPathComponent("\(name).gpx")
            try Data(text.utf8).write(to: file)
            entries.append(Entry(name: name, variant: .waypointsOnly, file: file))
        }
        self.directory = directory
        self.entries = entries
    }

    static func fixtureText(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureMissing(name: name)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        var name: String
        var description: String { "fixture \(name) is not in the ChaosTests bundle" }
    }

    /// Every `lat="…"` and `lon="…"` attribute moved by `shift`, written with 7 decimals: the index
    /// keeps coordinates to 1e-7 degree, so the stored route is exactly what the file says.
    static func shiftingCoordinates(_ text: String, by shift: (latitude: Double, longitude: Double)) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let match = rest.firstMatch(of: /(lat|lon)="(-?[0-9]+(?:\.[0-9]+)?)"/) {
            out += rest[..<match.range.lowerBound]
            let value = Double(match.output.2)! + (match.output.1 == "lat" ? shift.latitude : shift.longitude)
            out += "\(match.output.1)=\"\(String(format: "%.7f", value))\""
            rest = rest[match.range.upperBound...]
        }
        out += rest
        return out
    }

    /// Removes every `<name>` and gives the file one: in its first track, or in its metadata.
    static func renaming(_ text: String, to name: String, inTrack: Bool) -> String {
        var text = text.replacing(/<name>[^<]*<\/name>/, with: "")
        if inTrack, let track = text.firstMatch(of: /<trk>/) {
            text.replaceSubrange(track.range, with: "<trk><name>\(name)</name>")
        } else if let root = text.firstMatch(of: /<gpx[^>]*>/) {
            text.replaceSubrange(root.range, with: String(root.output) + "<metadata><name>\(name)</name></metadata>")
        }
        return text
    }

    /// Drops every `<extensions>` element, and with them the heart rate.
    static func removingExtensions(_ text: String) -> String {
        text.replacing(/<extensions>(?s:.*?)<\/extensions>/, with: "")
    }
}
