import Foundation
import WorkFeedModel

/// Walks a GPX document and gathers what ``GPXReader`` turns into a workout.
struct GPXParser {
    /// Points of one kind (track, route or waypoint) with what comes with them.
    struct Collection {
        var segments: [[RoutePoint]] = []
        var heartRate: [HeartRateSample] = []
        var firstOffset: Int?
        var name: String?
        var type: String?

        var pointCount: Int { segments.reduce(0) { $0 + $1.count } }

        mutating func add(_ point: GPXPoint) {
            if segments.isEmpty { segments.append([]) }
            segments[segments.count - 1].append(point.point)
            if firstOffset == nil { firstOffset = point.offset }
            if let bpm = point.heartRate, let time = point.point.time {
                heartRate.append(HeartRateSample(time: time, bpm: bpm))
            }
        }
    }

    /// One `trkpt`, `rtept` or `wpt`.
    struct GPXPoint {
        var point: RoutePoint
        var offset: Int?
        var heartRate: Double?
    }

    var reader: XMLPullReader
    /// The root's namespace; every GPX element is matched in it.
    var namespace = ""
    var tracks = Collection()
    var routes = Collection()
    var waypoints = Collection()
    var documentName: String?
    /// The root's `creator`: the app or device that wrote the file.
    var creator: String?
    /// Garmin's `TrackStatsExtension` of the tracks: the device's own figures.
    var trackStats: DeviceSummary?

    init(reader: XMLPullReader) {
        self.reader = reader
    }

    var file: String { reader.file }

    /// Reads the document and builds the workout.
    mutating func parse() throws(ImportError) -> ImportedWorkout {
        try readRoot()
        while true {
            switch try reader.next() {
            case .startElement:
                try readTopLevelElement()
            case .endDocument:
                return makeWorkout()
            default:
                continue
            }
        }
    }

    /// Checks the root element.
    private mutating func readRoot() throws(ImportError) {
        let root = try reader.rootElement(of: "a GPX file", file: file)
        guard root.local == "gpx" else {
            throw ImportError(file: file, line: reader.eventLine, message: "not a GPX file (root element is \(root.local))")
        }
        guard GPXNamespace.isGPX(root.namespace) else {
            throw ImportError(file: file, line: reader.eventLine, message: "not a GPX file (root element is in namespace \(root.namespace))")
        }
        namespace = root.namespace
        creator = reader.attribute("creator")
    }

    /// Reads one child of `<gpx>`; called at its start, returns after its end.
    private mutating func readTopLevelElement() throws(ImportError) {
        guard reader.name.namespace == namespace else { return try reader.skipElement() }
        switch reader.name.local {
        case "trk":
            try readTrack()
        case "rte":
            try readRoute()
        case "wpt":
            waypoints.add(try readPoint())
        case "metadata":
            try readMetadata()
        case "name":
            // GPX 1.0 names the file at the top level.
            let name = try reader.readTrimmedText()
            if documentName == nil { documentName = name }
        case "extensions":
            try reader.skipLeniently()
        default:
            try reader.skipElement()
        }
    }

    private mutating func readMetadata() throws(ImportError) {
        let depth = reader.depth
        while try reader.nextChild(of: depth) {
            if reader.name.namespace == namespace && reader.name.local == "name" {
                let name = try reader.readTrimmedText()
                if documentName == nil { documentName = name }
            } else if reader.name.namespace == namespace && reader.name.local == "extensions" {
                try reader.skipLeniently()
            } else {
                try reader.skipElement()
            }
        }
    }

    private mutating func readTrack() throws(ImportError) {
        let depth = reader.depth
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipElement()
                continue
            }
            switch reader.name.local {
            case "trkseg":
                tracks.segments.append([])
                try readTrackSegment()
            case "name":
                let name = try reader.readTrimmedText()
                if tracks.name == nil { tracks.name = name }
            case "type":
                let type = try reader.readTrimmedText()
                if tracks.type == nil { tracks.type = type }
            case "extensions":
                try readTrackExtensions()
            default:
                try reader.skipElement()
            }
        }
    }

    private mutating func readTrackSegment() throws(ImportError) {
        let depth = reader.depth
        while try reader.nextChild(of: depth) {
            if reader.name.local == "trkpt" && reader.name.namespace == namespace {
                tracks.add(try readPoint())
            } else {
                try reader.skipElement()
            }
        }
    }

    private mutating func readRoute() throws(ImportError) {
        let depth = reader.depth
        routes.segments.append([])
        while try reader.nextChild(of: depth) {
            guard reader.name.namespace == namespace else {
                try reader.skipElement()
                continue
            }
            switch reader.name.local {
            case "rtept":
                routes.add(try readPoint())
            case "name":
                let name = try reader.readTrimmedText()
                if routes.name == nil { routes.name = name }
            case "type":
                let type = try reader.readTrimmedText()
                if routes.type == nil { routes.type = type }
            case "extensions":
                try reader.skipLeniently()
            default:
                try reader.skipElement()
            }
        }
    }

    /// Picks what the workout is made of: track points, else route points, else waypoints.
    private func makeWorkout() -> ImportedWorkout {
        var workout = ImportedWorkout(source: .gpx, origin: file)
        let chosen: Collection
        if tracks.pointCount > 0 {
            chosen = tracks
            workout.route = Route(segments: tracks.segments, altitudeSource: AltitudeSource(recorder: creator))
        } else if routes.pointCount > 0 {
            chosen = routes
            workout.route = Route(segments: routes.segments, altitudeSource: AltitudeSource(recorder: creator))
        } else {
            // Waypoints are marks, not a path: the route stays empty, but their times still say
            // when the workout happened.
            chosen = waypoints
            let times = waypoints.segments.joined().compactMap(\.time)
            workout.start = times.min()
            workout.end = times.max()
        }
        workout.heartRate = chosen.heartRate
        workout.timeZoneOffset = chosen.firstOffset
        workout.name = tracks.name ?? routes.name ?? documentName
        workout.activity = ActivityType(sourceName: tracks.type ?? routes.type)
        if tracks.pointCount > 0 { workout.device = trackStats?.sanitized() }
        workout.warnings = reader.warnings
        return workout
    }
}
