import Foundation
import WorkFeedImport
import WorkFeedModel

/// Every recording in the project's test data and the demo, read as an import reads them: the
/// import tests' `Fixtures/` (the shared data's workout files and the hand-made ones), `Tests/Data`'s
/// tracks-in-map, the end-to-end and chaos tests' fixtures and `deploy/samples` (the demo's). Files
/// that are refused (the broken fixtures) give no workout and are left out here.
enum Recordings {
    struct Recording: Sendable, CustomStringConvertible {
        var workout: ImportedWorkout
        /// The figures the index stores for it (as `IndexTransaction.importWorkout` builds them).
        var record: WorkoutRecord
        var description: String { workout.origin }
    }

    static let folders: [URL] = {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var folders = [
            tests.appendingPathComponent("Data/tracks-in-map"), tests.appendingPathComponent("EndToEndTests/Fixtures"),
            tests.appendingPathComponent("ChaosTests/Fixtures"), tests.deletingLastPathComponent().appendingPathComponent("deploy/samples"),
        ]
        if let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) { folders.insert(fixtures, at: 0) }
        return folders
    }()

    /// Read once for every test that asks.
    static let all: [Recording] = {
        var recordings: [Recording] = []
        for folder in folders {
            for workout in WorkoutFileReader.readAll(contentsOf: folder).workouts {
                recordings.append(Recording(workout: workout, record: record(of: workout)))
            }
        }
        return recordings
    }()

    /// The workout's row as the index writes it: the track's summary with the device's figures
    /// (``DeviceSummary/shown(trackElevationGain:)``) in place of the track's.
    static func record(of workout: ImportedWorkout) -> WorkoutRecord {
        let track = WorkoutSummary(route: workout.route, heartRate: workout.heartRate, start: workout.start, end: workout.end)
        let device = workout.device?.shown(trackElevationGain: track.elevationGain)
        var record = WorkoutRecord(
            id: WorkoutID(UUID()), source: workout.source, sourceID: workout.sourceID ?? "", activity: workout.activity, name: workout.name,
            summary: track.applying(device), timeZoneOffset: workout.timeZoneOffset, routeVersion: 1, routeHash: "",
            heartRateHash: "", anchor: 0)
        record.deviceSource = device?.source
        record.deviceFigures = device?.figures
        record.timeZone = workout.timeZone
        record.timeZoneSource = workout.timeZoneSource
        return record
    }

    /// The recording read from the file whose name ends with `name` (its first workout).
    static func named(_ name: String) -> Recording? {
        all.first { $0.workout.file?.name.hasSuffix(name) == true || $0.workout.origin.contains(name) }
    }
}
