import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
import WorkFeedModel
import WorkFeedWire

/// Owners through the whole system: workctl (the real executable) against a real coordinator and
/// workers, on a real index and cache.
@Suite(.serialized) struct OwnerSystemTests {
    @Test func importFeedChangesStatusAndDeletePerOwner() throws {
        let system = try RunningSystem()
        defer { system.stop() }
        func workctl(_ arguments: [String]) throws -> WorkCtlProcess.Result {
            try WorkCtlProcess.run(arguments + ["--coordinator", system.endpoints.control])
        }
        let shared = try fixture("strava_run_2015_short_gpxtpx-hr.gpx")
        let own = try fixture("garmin-connect_ride_2020_short_ns3-hr.gpx")

        // The same file for two owners is two workouts; alice has one more; one without an owner
        // goes to the default owner.
        #expect(try workctl(["import", "--owner", "alice", shared, own]).output.contains("imported 2,"))
        #expect(try workctl(["import", "--owner", "bob", shared]).output.contains("imported 1,"))
        #expect(try workctl(["import", "--owner", "bob", shared]).output.contains("imported 0, unchanged 1"))
        #expect(try workctl(["import", try fixture("apple-watch_run_2025_3seg_partial-hr.gpx")]).output.contains("imported 1,"))
        let badOwner = try workctl(["import", "--owner", " x", shared])
        #expect(badOwner.status == 64 && badOwner.errors.contains("cannot start or end with a space"))

        #expect(try workctl(["enqueue", "--all", "--kind", "route", "--theme", "light,dark", "--wait"]).status == 0)

        // The records (owner, file, picture paths) from the coordinator; workctl's feed lists the same workouts.
        var client = try system.client()
        func records(_ owner: String?) throws -> [WorkoutWithPictures] {
            let page: FeedReply = try client.request(.feed, FeedRequest(limit: 100, owner: owner))
            return page.items
        }
        let alice = try records("alice")
        let bob = try records("bob")
        let everyone = try records(nil)
        for (owner, expected) in [("alice", alice), ("bob", bob)] {
            let listed = try decodeJSON(FeedPage.self, try workctl(["feed", "--owner", owner, "--json"]).output).items
            #expect(listed.map(\.id) == expected.map(\.workout.id))
        }
        #expect(try decodeJSON(FeedPage.self, try workctl(["feed", "--json"]).output).items.map(\.id) == everyone.map(\.workout.id))
        #expect(alice.count == 2 && alice.allSatisfy { $0.workout.owner == "alice" })
        #expect(bob.count == 1 && bob[0].workout.owner == "bob")
        #expect(everyone.count == 4 && everyone.filter { $0.workout.owner == Owner.defaultName }.count == 1)
        #expect(Set(alice.map(\.workout.id)).isDisjoint(with: bob.map(\.workout.id)))
        let aliceStatus = try decodeJSON(StatusReply.self, try workctl(["status", "--owner", "alice", "--json"]).output)
        #expect(aliceStatus.workouts == 2 && aliceStatus.total(.generated) == 4)
        let bobChanges = try decodeJSON(ChangesReply.self, try workctl(["changes", "--owner", "bob", "--json"]).output)
        #expect(Set(bobChanges.changes.map(\.id)) == [bob[0].workout.id])

        // Deleting one of bob's ids as alice leaves it alone.
        let refused = try workctl(["delete", "--owner", "alice", bob[0].workout.id.description])
        #expect(refused.status == 2 && refused.output.contains("not this owner's"))

        // Alice leaves: her workouts, series, jobs, picture files and the original only she had go;
        // bob's copy of the shared file, its pictures and its original stay.
        let cache = system.configuration.cacheDirectory
        let alicePictures = alice.flatMap(\.pictures).map { cache + "/" + $0.relativePath }
        let bobPictures = bob.flatMap(\.pictures).map { cache + "/" + $0.relativePath }
        #expect(alicePictures.count == 4 && alicePictures.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        func original(_ workout: WorkoutRecord) throws -> String {
            let sha = try #require(workout.file?.sha256)
            return "\(system.configuration.originalsPath)/\(sha.prefix(2))/\(sha).gz"
        }
        let ownOriginal = try original(try #require(alice.first { $0.workout.file?.name.contains("garmin") == true }).workout)
        let sharedOriginal = try original(bob[0].workout)
        #expect(FileManager.default.fileExists(atPath: ownOriginal) && FileManager.default.fileExists(atPath: sharedOriginal))

        let erased = try workctl(["delete", "--owner", "alice"])
        #expect(erased.status == 0)
        #expect(erased.output.contains("deleted 2 workouts of owner alice: 2 series, 4 picture jobs, 4 picture files, 1 original file"))
        let json = try decodeJSON(DeleteReply.self, try workctl(["delete", "--owner", "alice", "--json"]).output)
        #expect(json.deleted.isEmpty && json.pictures == 0)
        #expect(alicePictures.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(bobPictures.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(!FileManager.default.fileExists(atPath: ownOriginal))
        #expect(FileManager.default.fileExists(atPath: sharedOriginal))
        #expect(try decodeJSON(FeedPage.self, try workctl(["feed", "--owner", "alice", "--json"]).output).items.isEmpty)
        #expect(try decodeJSON(StatusReply.self, try workctl(["status", "--json"]).output).workouts == 2)
        // Alice's changes say her workouts went.
        let aliceChanges = try decodeJSON(ChangesReply.self, try workctl(["changes", "--owner", "alice", "--json"]).output)
        #expect(Set(aliceChanges.changes.filter { $0.change == .deleted }.map(\.id)) == Set(alice.map(\.workout.id)))
        #expect(try workctl(["delete"]).status == 64)
    }
}
