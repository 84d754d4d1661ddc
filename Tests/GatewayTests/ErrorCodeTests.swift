import Foundation
import Testing
import WorkFeedConfig
import WorkFeedCoordinator
@testable import WorkFeedGateway
import WorkFeedModel
import WorkFeedWire
import WorkFeedThreads

/// The coordinator's refusals reach the gateway as codes, and the gateway answers by the code,
/// never by the message's words (issue 27).
@Suite struct ErrorCodeTests {
    /// The status each code is answered with, written out apart from the gateway's table.
    static let statuses: [ControlErrorCode: Int] = [
        .notFound: 404, .expired: 503, .busy: 503, .badRequest: 500, .forbidden: 500, .internal: 500, .emptyWorkout: 400,
        .idempotencyKeyReused: 422,
    ]

    @Test(arguments: ControlErrorCode.allCases)
    func eachCodeMapsToItsStatus(code: ControlErrorCode) throws {
        let expected = try #require(Self.statuses[code], "a new code needs its status here")
        // The message is deliberately misleading: only the code may decide.
        let problem = Problem.from(.refused(code, "no workout with id 0"), notFound: "no workout x")
        // The status as HTTP writes it ("404 Not Found"): HTTPTypes is not a module these tests import.
        #expect(String(describing: problem.status).hasPrefix("\(expected) "), "\(problem.status)")
        if code == .notFound { #expect(problem.type == "urn:workfeed:problem:not-found" && problem.detail == "no workout x") }
    }

    @Test func refusalsWithoutACodeAreInternalWhateverTheySay() {
        // A coordinator of before codes said "no workout with id …" without one: not matched on.
        #expect(String(describing: Problem.from(.refused(nil, "no workout with id 0f")).status).hasPrefix("500 "))
        #expect(String(describing: Problem.from(.unavailable("no workout with id 0f")).status).hasPrefix("503 "))
    }

    /// Uploads or picture reads past their bound (``BlockingWork``): 503 `busy` with
    /// `Retry-After: 1` (Problem.busy sets it), saying which work is full.
    @Test func blockingWorkPastItsBoundIsA503() {
        let problem = Problem.busy(BlockingWorkError(label: "uploads being read", limit: 8))
        #expect(String(describing: problem.status).hasPrefix("503 "))
        #expect(problem.type == "urn:workfeed:problem:busy")
        #expect(problem.detail == "uploads being read: 8 already running or waiting, at most 8: try again shortly")
    }

    /// A real coordinator answers SHOW of an unknown id with `not-found`, and the gateway turns
    /// that code into 404 (the id of another owner alike).
    @Test func aRealCoordinatorsNotFoundIsA404ByCode() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let unknown = WorkoutID(UUID())
            var client = try ControlClient(context: system.context, endpoint: system.endpoints.control, timeoutMilliseconds: 10_000)
            do {
                let _: ShowReply = try client.request(.show, ShowRequest(id: unknown, owner: "alice"), as: ShowReply.self)
                Issue.record("SHOW of an unknown id was answered")
            } catch {
                #expect(error.fromCoordinator && error.code == .notFound, "\(error)")
            }
            let reply = try await system.get("/v1/workouts/\(unknown)", as: "alice")
            #expect(reply.status == 404 && reply.json["type"] as? String == "urn:workfeed:problem:not-found")
            #expect(reply.json["detail"] as? String == "no workout \(unknown)")
            let picture = try await system.get("/v1/workouts/\(unknown)/pictures/route/dark?scale=1", as: "alice")
            #expect(picture.status == 404, "\(String(decoding: picture.body, as: UTF8.self))")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
