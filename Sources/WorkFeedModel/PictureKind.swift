/// What a picture shows. Everything that sets one kind apart from another is said here, once, in
/// ``declaration``: its wire and SQL name (the raw value), what it draws, what it is drawn from
/// (``needs``, and so which workouts can have it), whether it is drawn ahead of time or on demand,
/// and the words the feed shows for it. The rest of the system asks these properties rather than
/// naming a kind; only the renderer's `switch` (WorkFeedRender, `Renderer.render`) says how each
/// kind is drawn. Adding a kind: docs/architecture.md, "Adding a picture kind".
public enum PictureKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The route snapshot.
    case route
    /// The route in segments coloured by heart-rate zone.
    case heatmap
    /// The route in segments coloured by pace (speed for rides), slow to fast.
    case pace
    /// The route in segments coloured by altitude, low to high.
    case elevation
    /// A card to post: the map with the route, the workout's title, date and figures, its time in
    /// each heart-rate zone and its elevation profile, 1080 × 1350 pixels at @3x (a portrait post).
    case share
    /// The same card as a story, 1080 × 1920 pixels at @3x.
    case story

    /// What sets this kind apart. Every kind sizes and themes its pictures alike (the
    /// configuration's `pictures.width`/`height`, its `themes`, ``PictureSpec/scaleRange``).
    public var declaration: PictureKindDeclaration {
        switch self {
        case .route:
            PictureKindDeclaration(
                summary: "the route on the map", label: "Route", drawing: "Drawing the route…", needs: [.route], metric: nil,
                drawnAhead: true)
        case .heatmap:
            PictureKindDeclaration(
                summary: "the route coloured by heart-rate zone", label: "Heart rate", drawing: "Drawing the heart rate…",
                needs: [.route, .heartRate], metric: "heartrate", drawnAhead: false)
        case .pace:
            PictureKindDeclaration(
                summary: "the route coloured by pace, or speed for rides", label: "Pace", drawing: "Drawing the pace…",
                needs: [.route, .times], metric: "pace", drawnAhead: false, ramp: .movement)
        case .elevation:
            PictureKindDeclaration(
                summary: "the route coloured by altitude", label: "Elevation", drawing: "Drawing the elevation…",
                needs: [.route, .elevation], metric: "elevation", drawnAhead: false, ramp: .altitude)
        case .share:
            PictureKindDeclaration(
                summary: "a card to share: map, title, date and figures, as a portrait post", label: "Share card",
                drawing: "Drawing the card…", needs: [.route], metric: "share", drawnAhead: false, drawnWhenPresent: [.heartRate],
                size: ShareCardSize.post.points)
        case .story:
            PictureKindDeclaration(
                summary: "the share card as a story", label: "Story card", drawing: "Drawing the card…", needs: [.route],
                metric: "story", drawnAhead: false, drawnWhenPresent: [.heartRate], size: ShareCardSize.story.points)
        }
    }

    /// The workout's series the picture is drawn from (``PictureKindDeclaration/needs``).
    public var needs: Set<PictureInput> { declaration.needs }

    /// Whether the picture is drawn from the workout's heart-rate samples too: its cache key
    /// holds their hash and its spec the owner's heart-rate zones. A kind that needs them
    /// (``needs``) is not queued for a workout without samples (not a failure), and a re-import
    /// that brings samples queues it; one that draws them where present (a share card's zone
    /// bar) is drawn without that part.
    public var usesHeartRate: Bool { needs.contains(.heartRate) || declaration.drawnWhenPresent.contains(.heartRate) }

    /// Whether the route is coloured along a ramp from the workout's lowest to its highest value
    /// (``PictureKindDeclaration/ramp``), or shows the workout's figures (a share card): its spec
    /// holds the owner's units, which its legend's or card's figures are in, so a change of the
    /// owner's `units` queues it again.
    public var usesUnits: Bool { declaration.ramp != nil || declaration.size != nil }

    /// Whether the picture is a share card (``ShareCardSize``): a fixed size, the workout's words
    /// and figures in its spec.
    public var isCard: Bool { declaration.size != nil }

    /// What a ramp-coloured picture of a workout of `activity` measures: pace on foot, speed on a
    /// ride or an activity of no known kind (as the feed's card gives them, ``FeedItem/Measure``),
    /// altitude for an elevation picture; `nil` for kinds coloured otherwise.
    public func rampMeasure(for activity: ActivityType) -> RouteMeasure? {
        switch declaration.ramp {
        case nil: nil
        case .movement: FeedItem.Measure(activity) == .pace ? .pace : .speed
        case .altitude: .elevation
        }
    }

    /// The measured quantity the picture colours the route by, in its file name
    /// (`…_heartrate_dark.png`); `nil` for a plain route.
    public var metric: String? { declaration.metric }

    /// Whether the picture is drawn ahead of time: queued for every upload by default
    /// (`uploads.request_kinds`), by `workctl enqueue` without `--kind`, and always shown by
    /// `workctl feed --html`. The others are drawn on demand (the feed page's switch, `--kind`).
    public var drawnAhead: Bool { declaration.drawnAhead }

    /// The kinds drawn ahead of time (``drawnAhead``), in declaration order.
    public static var drawnAhead: [PictureKind] { allCases.filter(\.drawnAhead) }

    /// Kinds' names for a message: `route or heatmap`.
    public static func names(of kinds: [PictureKind] = allCases, joinedBy word: String = "or") -> String {
        let names = kinds.map(\.rawValue)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " \(word) " + names.last!
    }

    /// Each kind with what it draws, for help texts: `route (the route on the map), heatmap (…)`.
    public static var described: String {
        allCases.map { "\($0.rawValue) (\($0.declaration.summary))" }.joined(separator: ", ")
    }

    /// Whether a workout with this record can have the picture: it has every input the kind
    /// needs (``PictureInput/isPresent(in:)``).
    public func isPossible(for record: WorkoutRecord) -> Bool {
        needs.allSatisfy { $0.isPresent(in: record) }
    }
}

/// The former name of ``PictureKind``, kept so that code written before the rename still
/// compiles; new code names ``PictureKind``.
public typealias JobKind = PictureKind

/// What a ``PictureKind`` is, as a value: one per kind, in ``PictureKind/declaration``.
public struct PictureKindDeclaration: Sendable, Hashable {
    /// What the picture draws, for help texts and docs (`workctl enqueue --help`).
    public var summary: String
    /// The picture's name on the feed page (its switch button, its image's alt text).
    public var label: String
    /// What the feed page shows while the picture is being drawn.
    public var drawing: String
    /// The workout's series the picture is drawn from; a workout lacking one cannot have it.
    public var needs: Set<PictureInput>
    /// The measured quantity the picture colours the route by, in its file name; `nil` for none.
    public var metric: String?
    /// ``PictureKind/drawnAhead``.
    public var drawnAhead: Bool
    /// What the route is coloured by along a ramp of colours, for kinds drawn so; `nil` otherwise.
    public var ramp: RampSource?
    /// Optional inputs the picture draws a part from where the workout has them, and is drawn
    /// without that part where it has not (a share card's heart-rate zones).
    public var drawnWhenPresent: Set<PictureInput>
    /// The picture's own size in points, for a kind drawn at a size of its own (a share card);
    /// `nil` for the configuration's `pictures.width`/`height`.
    public var size: PictureSize?

    public init(
        summary: String, label: String, drawing: String, needs: Set<PictureInput>, metric: String?, drawnAhead: Bool, ramp: RampSource? = nil,
        drawnWhenPresent: Set<PictureInput> = [], size: PictureSize? = nil
    ) {
        self.summary = summary
        self.label = label
        self.drawing = drawing
        self.needs = needs
        self.metric = metric
        self.drawnAhead = drawnAhead
        self.ramp = ramp
        self.drawnWhenPresent = drawnWhenPresent
        self.size = size
    }
}

/// A picture's size in points; its PNG is `width × scale` by `height × scale` pixels.
public struct PictureSize: Sendable, Hashable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// The sizes social apps take a shared picture in, by the names a picture request gives them
/// (`?size=post|story`): in points, so that at @3x, the scale they are asked at by default, a
/// post is 1080 × 1350 pixels (Instagram's portrait 4:5) and a story 1080 × 1920 (9:16).
public enum ShareCardSize: String, Sendable, Hashable, CaseIterable {
    case post
    case story

    /// The scale a share card is drawn at when the request names none: 3, the social apps' pixels.
    public static let defaultScale = 3

    public var points: PictureSize {
        switch self {
        case .post: PictureSize(width: 360, height: 450)
        case .story: PictureSize(width: 360, height: 640)
        }
    }

    /// The picture kind of a card of this size.
    public var kind: PictureKind {
        switch self {
        case .post: .share
        case .story: .story
        }
    }
}

/// What a ramp-coloured kind colours its route by (``PictureKindDeclaration/ramp``).
public enum RampSource: Sendable, Hashable {
    /// How fast the workout moved: its pace or its speed, by activity (``PictureKind/rampMeasure(for:)``).
    case movement
    /// The route's altitudes.
    case altitude
}

/// The quantity a ramp-coloured picture shows, and its legend names: a pace (time a kilometre or
/// a mile), a speed (kilometres or miles an hour) or an altitude (metres or feet).
public enum RouteMeasure: String, Sendable, Hashable, Codable, CaseIterable {
    case pace
    case speed
    case elevation
}

/// A series of a workout a picture may be drawn from (``PictureKindDeclaration/needs``). A new
/// input (elevation, say) is a case here, ``isPresent(in:)``, and the index's condition on its
/// workout column (WorkFeedIndex, `PictureInput.workoutCondition`): the compiler points at both.
public enum PictureInput: String, Sendable, Hashable, Codable, CaseIterable {
    /// The route's points. Every stored workout has a route series, perhaps empty: its pictures
    /// are queued all the same and an empty route fails with the code `no-route`.
    case route
    /// The heart-rate samples. A workout without them gets no job for a kind that needs them
    /// (it could only fail): the picture is remembered and queued when a re-import brings them.
    case heartRate = "heart-rate"
    /// Timestamps along the route, spanning some time: a workout has them when it has a start
    /// before its end (the file's first and last times). Optional, as heart rate is.
    case times
    /// Altitudes along the route: a workout has them when it has a climb (``WorkoutRecord/elevationGain``,
    /// from the track's altitudes or the device). Optional, as heart rate is.
    case elevation

    /// Whether the workout has this input.
    public func isPresent(in record: WorkoutRecord) -> Bool {
        switch self {
        case .route: record.pointCount > 0
        case .heartRate: (record.heartRateSamples ?? 0) > 0
        case .times: record.start.flatMap { start in record.end.map { $0 > start } } ?? false
        case .elevation: record.elevationGain?.isFinite ?? false
        }
    }

    /// Whether a workout may lack this input and still be stored: a picture that needs it is then
    /// not queued (it could only fail) but remembered. The route is always stored, perhaps empty.
    public var isOptional: Bool {
        switch self {
        case .route: false
        case .heartRate, .times, .elevation: true
        }
    }

    /// What a workout without this input lacks, as the gateway's 422 `reason` says it.
    public var missing: String {
        switch self {
        case .route: "no route"
        case .heartRate: "no heart-rate samples"
        case .times: "no timestamps"
        case .elevation: "no elevation"
        }
    }
}
