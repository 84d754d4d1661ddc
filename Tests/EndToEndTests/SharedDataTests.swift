import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Issue 12: the whole of ../shared/data (its workout files, copied into the project with their
/// SOURCES.md rows: `Tests/WorkFeedImportTests/Fixtures` and `Tests/Data/tracks-in-map`) imported
/// twice into one index. The second import changes nothing, and every file's outcome matches its
/// row in SOURCES.md, or the table below says why not.
@Suite(.serialized) struct SharedDataTests {
    /// What importing a file does.
    enum Outcome: Equatable, CustomStringConvertible {
        /// One workout per entry: its points and heart-rate samples.
        case imported([Counts])
        /// Refused; the error says this.
        case refused(String)
        /// The same activity as the workout of that file (relative path): not imported.
        case duplicate(of: String)
        /// The same workout as that file's, which has more: not stored.
        case keptRicher(than: String)
        /// The same activity as that file's, which has clearly more, and took this one's place.
        case replacedBy(String)
        /// A valid file without workouts.
        case nothing
        /// Read only through the Apple Health export that refers to it.
        case throughExport

        var description: String {
            switch self {
            case .imported(let counts): "imported \(counts.map { "\($0.points) points, \($0.heartRate) hr" })"
            case .refused(let message): "refused: \(message)"
            case .duplicate(let file): "duplicate of \(file)"
            case .keptRicher(let file): "kept the richer copy of \(file)"
            case .replacedBy(let file): "replaced by \(file)"
            case .nothing: "no workout"
            case .throughExport: "read through its export"
            }
        }
    }

    struct Counts: Equatable {
        var points: Int
        var heartRate: Int
    }

    /// The outcome of each file, and, where the outcome or the counts differ from what the file's
    /// SOURCES.md row says, why.
    static let expected: [String: (outcome: Outcome, why: String?)] = {
        func one(_ points: Int, _ heartRate: Int, _ why: String? = nil) -> (Outcome, String?) {
            (.imported([Counts(points: points, heartRate: heartRate)]), why)
        }
        // Issue 36: a file with no track and no figures is skipped (docs/import.md, "Nothing to show").
        func empty(_ what: String) -> (Outcome, String?) {
            (.refused(": no track and no figures: "), "\(what), and no distance, time, heart rate or calories: nothing to show (issue 36)")
        }
        let noPosition = "trackpoints without <Position> add no route point (docs/import.md, TCX), their heart rate still counts"
        return [
            "gpx-hr/apple-watch_run_2025_3seg_partial-hr.gpx": one(17, 13),
            "gpx-hr/garmin-connect_ride_2016_ns3-hr.gpx": one(931, 931),
            "gpx-hr/garmin-connect_ride_2020_short_ns3-hr.gpx": (
                .duplicate(of: "fit/garmin-edge_ride_2020_short.fit"), "the 2020 ride, imported first as FIT (issue 12, finding 3)"
            ),
            "gpx-hr/garmin-connect_run_2012_gpxtpx-hr.gpx": one(206, 206),
            "gpx-hr/garmin-connect_run_2017_ns3-hr-cad.gpx": one(988, 988),
            "gpx-hr/garmin-oregon600_3seg_partial-hr.gpx": one(16, 9),
            "gpx-hr/runpandas_run_2021_sparse-hr-sparse-ele.gpx": one(798, 389),
            "gpx-hr/strava_run_2015_short_gpxtpx-hr.gpx": one(42, 42),
            "gpx-hr/strava_run_2018_gpxtpx-hr.gpx": one(314, 314),

            "gpx-edge/bad-values_lat-undefined.gpx": (
                .refused(":5: lat: not a number: 'undefined'"), "a coordinate that is not a number is refused (docs/import.md, GPX)"
            ),
            "gpx-edge/empty-ele-element_osmand.gpx": (
                .replacedBy("gpx-edge/gpx10_3trk_partial-times_osm.gpx"),
                "its two points are the start of the OSM trace in gpx10_3trk_partial-times_osm.gpx (54 s apart, on the same way): the same activity, and that copy has 420 points"
            ),
            "gpx-edge/empty-ele-element_self-closing_ridewithgps.gpx": one(3, 0),
            "gpx-edge/empty-segment-among-others.gpx": one(9, 0),
            "gpx-edge/empty-trk-no-points.gpx": empty("an empty track"),
            "gpx-edge/gpx10_3trk_partial-times_osm.gpx": one(420, 0),
            "gpx-edge/gpx10_all-fields.gpx": empty("a track of one point"),
            "gpx-edge/gpx10_gpslogger_course-speed.gpx": one(2, 0),
            "gpx-edge/gpx11_all-fields.gpx": empty("a track of one point (gpxpy's synthetic data as GPX 1.1)"),
            "gpx-edge/iso-8859-1_encoded_gpx10_wpt.gpx": empty("waypoints only"),
            "gpx-edge/mismatched-tag_invalid-extensions.gpx": (
                .duplicate(of: "gpx-edge/gpx10_gpslogger_course-speed.gpx"),
                "broken only inside <extensions>, so it is read with a warning (issue 12, finding 6); its two points are jpx's GPX_10-1.gpx's: the same activity"
            ),
            "gpx-edge/mixed_trk-rte-wpt_garmin-basecamp.gpx": one(10, 0),
            "gpx-edge/mixed_trk-rte-wpt_mixed-tz_gdal.gpx": one(4, 0),
            "gpx-edge/multi-track_3trk_mapsource.gpx": one(117, 0),
            "gpx-edge/multi-track_caltopo_2trk.gpx": one(6, 0),
            "gpx-edge/no-closing-tag_garmin-basecamp.gpx": (.refused(":204: unexpected end of file"), nil),
            "gpx-edge/no-creator_issue-186.gpx": one(9, 0),
            "gpx-edge/no-time-no-ele_15seg_gdal.gpx": one(34, 0),
            "gpx-edge/no-time_gpx10_8trk_gpsbabel.gpx": one(296, 0),
            "gpx-edge/no-time_strava-route-as-trk.gpx": one(113, 0),
            "gpx-edge/no-xml-declaration_no-namespace.gpx": empty("a track of one point"),
            "gpx-edge/open-gpx-tracker_ios_4142pts_no-hr.gpx": one(4142, 0),
            "gpx-edge/opentracks_odd-tz-offset-0115.gpx": empty("a track of one point"),
            "gpx-edge/opentracks_tpx-v2-hr_3seg_tz-offsets.gpx": one(5, 1),
            "gpx-edge/out-of-range-coords_open-gpx-tracker.gpx": (
                .refused(":3: lat: 91.38389 is outside -90...90"), "coordinates outside the globe are refused (docs/import.md, GPX)"
            ),
            "gpx-edge/polar-m400_run_2020_no-hr_single-line.gpx": one(3032, 0),
            "gpx-edge/pytrainer_gpxdata-hr-namespace.gpx": one(4, 4),
            "gpx-edge/route-only_empty-rte_gpx10.gpx": empty("an empty route"),
            "gpx-edge/route-only_rte_gpx10_no-time.gpx": one(120, 0),
            "gpx-edge/route-only_rte_with-times_opencpn.gpx": one(16, 0),
            "gpx-edge/runkeeper_hr-on-waypoint.gpx": one(0, 1),
            "gpx-edge/single-trkpt.gpx": empty("a track of one point"),
            "gpx-edge/sub-second-times_nikeplus.gpx": one(2, 0),
            "gpx-edge/truncated_garmin-basecamp.gpx": (.refused(":58: unexpected end of file"), nil),
            "gpx-edge/utf8-bom.gpx": empty("no track points"),
            "gpx-edge/waypoints-only_no-namespace.gpx": empty("waypoints only"),
            "gpx-edge/waypoints-only_with-ele_austria.gpx": empty("waypoints only"),
            "gpx-edge/zepp-app_invalid-version-attr_hr.gpx": one(2, 2),
            "gpx-edge/zero-elevation_gpx10.gpx": one(3, 0),

            "tcx/course_no-activity.tcx": one(30, 0),
            "tcx/fitbit-versa_bad-positions_dup-lap-start.tcx": (
                .refused(":50: LatitudeDegrees: not a number: 'no'"), "a latitude that is not a number is refused (docs/import.md, TCX)"
            ),
            "tcx/fitbit-versa_ride_2020_hr.tcx": one(465, 465),
            "tcx/garmin-connect_ride_2020_short.tcx": (
                .duplicate(of: "fit/garmin-edge_ride_2020_short.fit"), "the 2020 ride, imported first as FIT (issue 12, finding 3)"
            ),
            "tcx/garmin-edge500_ride_2021_no-hr.tcx": one(48, 0),
            "tcx/garmin-edge520_ride_2020_no-hr.tcx": one(316, 0, "one of its 317 trackpoints has no position; " + noPosition),
            "tcx/garmin-forerunner305_run_2007_3tracks_no-hr.tcx": one(17, 0, "two of its 19 trackpoints have no position; " + noPosition),
            "tcx/garmin-forerunner410_run_2012_hr_3laps.tcx": one(383, 383, "one of its 384 trackpoints has no position; " + noPosition),
            "tcx/garmin-forerunner410_run_2012_no-hr.tcx": (
                .keptRicher(than: "tcx/garmin-forerunner410_run_2012_hr_3laps.tcx"),
                "the same activity Id as the copy with heart rate, which sorts first (issue 12, finding 2)"
            ),
            "tcx/garmin-forerunner410_run_2017_hr_10laps.tcx": one(725, 725, "one of its 726 trackpoints has no position; " + noPosition),
            "tcx/garmin-vivoactive-hr_pool-swim_no-positions.tcx": one(0, 0, "none of its 32 trackpoints has a position; " + noPosition),
            "tcx/garmin-vivoactive-hr_sup_2022_hr_no-altitude.tcx": one(111, 111),
            "tcx/garmin-vivoactive-hr_walk_2018_hr_4laps.tcx": one(660, 660),
            "tcx/mapmyride_ride_2022_microsecond-times_no-hr.tcx": one(3105, 0, "seven of its 3112 trackpoints have no position; " + noPosition),
            "tcx/runtastic_run_2016_hr.tcx": one(750, 750),

            "fit/coros-pace2_ride_misaligned-fields.fit": one(10305, 8946),
            "fit/garmin-edge820_ride_hr.fit": one(15, 15),
            "fit/garmin-edge_ride_2020_short.fit": one(96, 96),
            "fit/garmin-fenix2_run_hr_4laps.fit": one(2809, 2808),
            "fit/garmin-fenix5_run_hr.fit": one(21, 21),
            "fit/garmin-fenix5_walk_hr.fit": one(17, 17),
            "fit/garmin_indoor-trainer_no-gps_hr.fit": one(0, 2263),
            "fit/sdk-sample_truncated-eof.fit": (
                .refused("offset 4: the header says 757 bytes of data"), "its header's data size exceeds the file: refused (docs/import.md, FIT)"
            ),
            "fit/slither_garmin_run_hr.fit": one(716, 718),
            "fit/strava-android_run_bad-header-size.fit": (
                .refused("offset 4: the header says 78236 bytes of data"), "its header's data size exceeds the file: refused (docs/import.md, FIT)"
            ),
            "fit/wahoo-elemnt-bolt_ride_dev-data-quirk.fit": one(131, 0),
            "fit/wahoo-elemnt_ride_hr_long.fit": one(
                13348, 13402,
                "54 of the 13402 records with position fields hold FIT's invalid value 0x7FFFFFFF (counted apart with a separate walker)"),

            "apple-health/apple-health-parser_export_hr-records_no-workout.xml": (.nothing, nil),
            "apple-health/apple-health-parser_export_with-macosx-junk.zip": (
                .nothing, "its export.xml is the one above: heart-rate records, no workout"
            ),
            "apple-health/dogsheep_apple_health_export/export.xml": one(
                3, 0, "its route file has 3 points; its one heart-rate record (2018) is outside the 2016 workout"),
            "apple-health/dogsheep_apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx": (.throughExport, nil),
            "apple-health/dogsheep_export_inline-route-locations.xml": (
                .keptRicher(than: "apple-health/dogsheep_apple_health_export/export.xml"),
                "the same workout (same source, type, start and end) with 2 inline points, against 3 from the folder export's route file"
            ),
            "apple-health/tdda_export_with-doctype-dtd.xml": one(0, 0, "one workout without a route"),
            "apple-health/togeojson_apple-watch_workout-route_2019.gpx": one(44, 0),

            "tracks-in-map/heidelberg/runpandas_garmin-fr645m_run_2019_hr.fit": one(1157, 1202),
            "tracks-in-map/heidelberg/fitfiler_tomtom-runner3_ride_2021.fit": one(1043, 0),
            "tracks-in-map/zeeland/Zeeland__Activities__Radfahrt__Leihrad__2023-09-08-08-53-49_Breskens.fit": one(1084, 1092),
            "tracks-in-map/zeeland/Zeeland__Activities__Radfahrt__Leihrad__2023-09-14-09-28-34_Deich_bis_Breskens.fit": one(993, 999),
            "tracks-in-map/zeeland/Zeeland__Activities__Radfahrt__Term_Link_D8_2015__2025-08-31_09_57_05.835_Zwin_und_Nieuwvliet.gpx": one(
                1786, 0, "OpenTracks writes <gpxtpx:hr>0</gpxtpx:hr> (no reading) on every point"),
            "tracks-in-map/zeeland/Zeeland__Activities__Spaziergang__Brooks_Caldera_5__2025-08-30_20_29_18.085_BC_Cadzand-Bad.gpx": one(
                104, 0, "OpenTracks writes <gpxtpx:hr>0</gpxtpx:hr> (no reading) on every point"),
            "tracks-in-map/zeeland/Zeeland__Activities__Spaziergang__New_Balance_Fresh_Foam_860v11__2025-09-03_11_32_33.996_Cadzand-Bad.gpx": one(
                136, 0, "OpenTracks writes <gpxtpx:hr>0</gpxtpx:hr> (no reading) on every point"),
            "tracks-in-map/zeeland/Zeeland__Activities__Wanderung__Brooks_Caldera_5__2025-08-29_20_12_17.410_Cadzand-Bad.gpx": one(
                265, 0, "OpenTracks writes <gpxtpx:hr>0</gpxtpx:hr> (no reading) on every point"),
        ]
    }()

    /// Fixture rows that are not files of ../shared/data.
    static let notShared = [
        "apple-health/route_2019-06-11_3.00pm.gpx":
            "a second copy of the dogsheep route file for the reader tests; in ../shared/data it is only inside the export folder"
    ]

    /// The rows of a SOURCES.md: file (prefixed with `folder`) and its description, for the
    /// sections whose heading names one of `sections`.
    static func rows(of file: URL, sections: [String], prefix: (String) -> String) throws -> [String: String] {
        var rows: [String: String] = [:]
        var section: String?
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("## ") {
                section = sections.first { line.dropFirst(3).hasPrefix($0) }
                continue
            }
            guard let section, line.hasPrefix("| `"), let name = line.split(separator: "`").dropFirst().first else { continue }
            rows[prefix(section) + name] = String(line.split(separator: "|").last ?? "")
        }
        return rows
    }

    /// Points and heart-rate samples a row states, where it states them.
    static func stated(_ row: String, _ path: String) -> Counts? {
        func number(_ pattern: Regex<(Substring, Substring)>) -> Int? {
            row.firstMatch(of: pattern).flatMap { Int($0.1.replacingOccurrences(of: ",", with: "")) }
        }
        let heartRate = number(/HR: (\d+)×/) ?? 0
        switch (path as NSString).pathExtension {
        case "gpx":
            guard !path.hasPrefix("tracks-in-map") else { return number(/([\d,]+) points/).map { Counts(points: $0, heartRate: 0) } }
            let trackPoints = number(/(\d+) trkpt/) ?? 0
            return Counts(points: trackPoints > 0 ? trackPoints : number(/(\d+) rtept/) ?? 0, heartRate: heartRate)
        case "tcx":
            return number(/(\d+) Trackpoint/).map { Counts(points: $0, heartRate: number(/HR: (\d+)×HeartRateBpm/) ?? 0) }
        case "fit":
            if let position = number(/with HR, (\d+) with position/), let withHR = number(/\((\d+) with HR/) {
                return Counts(points: position, heartRate: withHR)
            }
            return number(/([\d,]+) points?/).map { Counts(points: $0, heartRate: 0) }
        default:
            return nil
        }
    }

    @Test func theWholeSharedDataSetImportedTwice() throws {
        // The shared data's layout, rebuilt from the copies: one link per SOURCES.md row.
        var rows = try Self.rows(
            of: RealFiles.fixtures.appendingPathComponent("SOURCES.md"), sections: ["gpx-hr/", "gpx-edge/", "tcx/", "fit/", "apple-health/"],
            prefix: { $0 })
        for name in Self.notShared.keys { rows[name] = nil }
        let tracks = try Self.rows(of: RealFiles.data.appendingPathComponent("SOURCES.md"), sections: ["tracks-in-map/"], prefix: { $0 })
        rows.merge(tracks) { first, _ in first }
        #expect(
            Set(rows.keys) == Set(Self.expected.keys),
            "rows without an expectation: \(Set(rows.keys).subtracting(Self.expected.keys)); expectations without a row: \(Set(Self.expected.keys).subtracting(rows.keys))"
        )

        let scratch = try ScratchFolder()
        let data = scratch.url.appendingPathComponent("data")
        for name in rows.keys {
            let source =
                name.hasPrefix("tracks-in-map/") ? RealFiles.data.appendingPathComponent(name) : RealFiles.fixtures.appendingPathComponent(name)
            let link = data.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: source)
        }
        func relative(_ path: String) -> String {
            String(path.dropFirst(data.path.count + 1).split(separator: ":").first ?? "")
        }

        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        let first = try WorkCtlProcess.run(["import", "--json", data.path, "--coordinator", system.endpoints.control])
        let summary = try decodeJSON(ImportSummaryJSON.self, first.output)
        var client = try system.client()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 1000))
        let status: StatusReply = try client.request(.status, [String: String]())

        // Every file's outcome.
        var actual: [String: Outcome] = [:]
        var imported: [String: [Counts]] = [:]
        for workout in feed.items.map(\.workout) {
            guard let file = workout.file else { continue }
            imported[relative(file.name), default: []].append(Counts(points: workout.pointCount, heartRate: workout.heartRateSamples ?? -1))
        }
        for (file, workouts) in imported { actual[file] = .imported(workouts) }
        for skipped in summary.skipped { actual[relative(skipped.file)] = .refused(skipped.reason) }
        for duplicate in summary.duplicates { actual[relative(duplicate.file)] = .duplicate(of: relative(duplicate.duplicateFile ?? "")) }
        for kept in summary.keptRicher {
            let stored = feed.items.first { $0.workout.id == kept.id }?.workout.file?.name ?? ""
            actual[relative(kept.file)] = .keptRicher(than: relative(stored))
        }
        for replaced in summary.replacedDuplicates { actual[relative(replaced.previousFile ?? "")] = .replacedBy(relative(replaced.file)) }

        for (name, row) in rows.sorted(by: { $0.key < $1.key }) {
            let (outcome, why) = try #require(Self.expected[name])
            switch outcome {
            case .refused(let message):
                let got = actual[name]
                guard case .refused(let reason) = got else {
                    Issue.record("\(name): \(String(describing: got)), expected refused")
                    continue
                }
                #expect(reason.contains(message), "\(name): \(reason)")
                #expect(
                    row.contains("BROKEN") || row.contains("exceeds file length") || why != nil, "\(name): refused, but its row does not say BROKEN")
            case .nothing, .throughExport:
                #expect(actual[name] == nil, "\(name): \(String(describing: actual[name]))")
            case .imported(let counts):
                #expect(actual[name] == outcome, "\(name): \(String(describing: actual[name])), expected \(outcome)")
                #expect(!row.contains("BROKEN") || why != nil, "\(name): its row says BROKEN")
                if let stated = Self.stated(row, name), counts.count == 1 {
                    let agrees = stated.points == counts[0].points && (name.hasPrefix("tracks-in-map") || stated.heartRate == counts[0].heartRate)
                    #expect(agrees || why != nil, "\(name): its row says \(stated), it imports as \(counts[0]), and nothing says why")
                }
            default:
                #expect(actual[name] == outcome, "\(name): \(String(describing: actual[name])), expected \(outcome)")
                #expect(why != nil, "\(name): not imported, and nothing says why")
            }
        }
        #expect(summary.warnings.count == 1 && summary.warnings.first?.contains("mismatched-tag_invalid-extensions.gpx:39") == true)

        // The second import changes nothing: no anchor is handed out, the feed is the same.
        let second = try WorkCtlProcess.run(["import", "--json", data.path, "--coordinator", system.endpoints.control])
        let again = try decodeJSON(ImportSummaryJSON.self, second.output)
        #expect(again.imported == 0 && again.updated == 0 && again.refreshed == 0 && again.replacedDuplicates.isEmpty)
        // The copy that replaced a duplicate is found by its identity; the copy it replaced is a duplicate now.
        #expect(again.unchanged == summary.imported)
        #expect(again.duplicates.count == summary.duplicates.count + summary.replacedDuplicates.count)
        #expect(again.keptRicher.count == summary.keptRicher.count && again.skipped.count == summary.skipped.count)
        let statusAfter: StatusReply = try client.request(.status, [String: String]())
        #expect(statusAfter.anchor == status.anchor)
        let feedAfter: FeedReply = try client.request(.feed, FeedRequest(limit: 1000))
        #expect(feedAfter.items == feed.items)

        // One original is kept per file a stored workout came from, and no other.
        let hashes = Set(feed.items.compactMap { $0.workout.file?.sha256 })
        let originals = try FileManager.default.subpathsOfDirectory(atPath: system.configuration.originalsPath)
            .filter { $0.hasSuffix(".gz") }.map { String(($0 as NSString).lastPathComponent.dropLast(3)) }
        #expect(Set(originals) == hashes && originals.count == hashes.count)
        #expect(feed.items.allSatisfy { $0.workout.originalKept == true })

        // Reading every kept original again with the same readers changes nothing either.
        let reread = try WorkCtlProcess.run(["reimport", "--all", "--json", "--coordinator", system.endpoints.control])
        let reimported = try decodeJSON(ImportSummaryJSON.self, reread.output)
        #expect(reread.status == 0, "\(reread.output)")
        #expect(reimported.unchanged == feed.items.count && reimported.updated == 0 && reimported.refreshed == 0)
        let statusReread: StatusReply = try client.request(.status, [String: String]())
        #expect(statusReread.anchor == status.anchor)
    }

    /// The devices' distances of the tracks-in-map recordings, by file name: the FIT sessions'
    /// totals (read with a separate Python FIT walker) and the GPX files' `TrackStatsExtension`
    /// distance (read from the files' text here).
    static func tracksInMapDistances() throws -> [String: Double] {
        let folder = RealFiles.data.appendingPathComponent("tracks-in-map")
        var expected: [String: Double] = [
            "runpandas_garmin-fr645m_run_2019_hr.fit": 5839.77, "fitfiler_tomtom-runner3_ride_2021.fit": 5099.18,
            "Zeeland__Activities__Radfahrt__Leihrad__2023-09-08-08-53-49_Breskens.fit": 20292.64,
            "Zeeland__Activities__Radfahrt__Leihrad__2023-09-14-09-28-34_Deich_bis_Breskens.fit": 16756.89,
        ]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("zeeland").path) where file.hasSuffix(".gpx") {
            let text = try String(contentsOf: folder.appendingPathComponent("zeeland/" + file), encoding: .utf8)
            expected[file] = Double(try #require(text.firstMatch(of: /<gpxtrkx:Distance>([0-9.]+)</)).1)
        }
        return expected
    }

    /// The real recordings of tracks-in-map import with their devices' distances: the FIT
    /// sessions' totals (read with a separate Python FIT walker) and the GPX files'
    /// `TrackStatsExtension` distance (read from the files' text here).
    @Test func tracksInMapImportWithTheirDevicesDistances() throws {
        let folder = RealFiles.data.appendingPathComponent("tracks-in-map")
        let system = try RunningSystem(workers: 0)
        defer { system.stop() }
        _ = try WorkCtlProcess.run(["import", folder.path, "--coordinator", system.endpoints.control])
        var client = try system.client()
        let feed: FeedReply = try client.request(.feed, FeedRequest(limit: 100))
        var distances: [String: Double] = [:]
        for workout in feed.items.map(\.workout) {
            distances[URL(fileURLWithPath: workout.file?.name ?? "").lastPathComponent] = workout.distance
        }
        #expect(distances.count == 8)
        for (file, distance) in try Self.tracksInMapDistances() {
            #expect(distances[file] == distance, "\(file)")
        }
        #expect(feed.items.allSatisfy { $0.workout.deviceFigures?.contains("distance") == true })
    }
}
