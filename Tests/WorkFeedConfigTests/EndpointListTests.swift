import Foundation
import Testing
import WorkFeedConfig

/// The coordinators' endpoints as a list (issue 34): the worker's `coordinator`, the gateway's
/// `coordinator.control` and `coordinator.events` take one endpoint as before, or several
/// comma-separated (or a YAML sequence); a bad item is named with its key.
@Suite struct EndpointListTests {
    static let secret = ["WORKFEED_TOKENS_SECRET": String(repeating: "s", count: 32)]

    func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workfeed-endpoints-\(UUID().uuidString).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func oneEndpointIsAListOfOne() throws {
        #expect(try EndpointList.parse("tcp://127.0.0.1:5555") == ["tcp://127.0.0.1:5555"])
        #expect(try EndpointList.parse("ipc:///run/workfeed/workers") == ["ipc:///run/workfeed/workers"])
    }

    @Test func severalAreSplitAtCommasAndTrimmedInOrder() throws {
        #expect(
            try EndpointList.parse("tcp://a.internal:5555, tcp://b.internal:5555 ,inproc://c")
                == ["tcp://a.internal:5555", "tcp://b.internal:5555", "inproc://c"])
        #expect(try EndpointList.parse(items: ["tcp://a:1,tcp://b:2", "tcp://c:3"]) == ["tcp://a:1", "tcp://b:2", "tcp://c:3"])
    }

    @Test(arguments: [
        ("tcp://a:1,http://b:2", "http://b:2", 2),
        ("tcp://a:1,,tcp://b:2", "", 2),
        ("tcp://a:1,", "", 2),
        ("tcp://a:1,tcp://a:1", "tcp://a:1", 2),
        ("tcp://", "tcp://", 1),
        ("", "", 1),
        ("127.0.0.1:5555", "127.0.0.1:5555", 1),
    ])
    func aBadItemIsNamedWithItsPlace(text: String, item: String, position: Int) {
        do {
            let parsed = try EndpointList.parse(text)
            Issue.record("accepted '\(text)' as \(parsed)")
        } catch {
            #expect(error.item == item && error.position == position, "\(error)")
        }
    }

    @Test func theWorkerTakesAListFromAFlagTheEnvironmentOrTheFile() async throws {
        let single = try await WorkerConfiguration.load(file: nil, environment: [:])
        #expect(single.coordinatorEndpoints == ["tcp://127.0.0.1:5555"])
        let flag = try await WorkerConfiguration.load(
            file: nil, environment: ["WORKFEED_COORDINATOR": "tcp://env:1"], overrides: ["coordinator": "tcp://a:5555,tcp://b:5555"])
        #expect(flag.coordinatorEndpoints == ["tcp://a:5555", "tcp://b:5555"])
        let environment = try await WorkerConfiguration.load(file: nil, environment: ["WORKFEED_COORDINATOR": "tcp://a:5555, tcp://b:5555"])
        #expect(environment.coordinatorEndpoints == ["tcp://a:5555", "tcp://b:5555"])
        let text = try await WorkerConfiguration.load(file: try file("coordinator: tcp://a:5555,tcp://b:5555\n"), environment: [:])
        #expect(text.coordinatorEndpoints == ["tcp://a:5555", "tcp://b:5555"])
        let sequence = try await WorkerConfiguration.load(file: try file("coordinator:\n  - tcp://a:5555\n  - tcp://b:5555\n"), environment: [:])
        #expect(sequence.coordinatorEndpoints == ["tcp://a:5555", "tcp://b:5555"])
    }

    @Test func theWorkersBadItemIsNamedWithTheKeyAndWhereItCameFrom() async throws {
        do {
            _ = try await WorkerConfiguration.load(file: nil, environment: ["WORKFEED_COORDINATOR": "tcp://a:5555,coordinator-b:5555"])
            Issue.record("accepted an item that is not an endpoint")
        } catch {
            #expect(error.key == "coordinator" && error.value == "coordinator-b:5555", "\(error)")
            #expect(error.file == "environment variable WORKFEED_COORDINATOR")
            #expect(error.description.contains("item 2 of 'tcp://a:5555,coordinator-b:5555'"), "\(error)")
        }
        let twice = try file("coordinator: tcp://a:5555,tcp://a:5555\n")
        do {
            _ = try await WorkerConfiguration.load(file: twice, environment: [:])
            Issue.record("accepted an endpoint listed twice")
        } catch {
            #expect(error.key == "coordinator" && error.value == "tcp://a:5555" && error.allowed.hasPrefix("listed twice"), "\(error)")
        }
    }

    @Test func theGatewayTakesListsForControlAndEvents() async throws {
        let single = try await GatewayConfiguration.load(file: nil, environment: Self.secret)
        #expect(single.controlEndpoints == ["tcp://127.0.0.1:5556"] && single.eventsEndpoints == ["tcp://127.0.0.1:5557"])
        let several = try await GatewayConfiguration.load(
            file: try file("coordinator:\n  control: tcp://a:5556,tcp://b:5556\n  events: [tcp://a:5557, tcp://b:5557]\n"), environment: Self.secret)
        #expect(several.controlEndpoints == ["tcp://a:5556", "tcp://b:5556"])
        #expect(several.eventsEndpoints == ["tcp://a:5557", "tcp://b:5557"])
        for key in ["coordinator.control", "coordinator.events"] {
            do {
                _ = try await GatewayConfiguration.load(file: nil, environment: Self.secret, overrides: [key: "tcp://a:1,,tcp://b:2"])
                Issue.record("accepted an empty item in \(key)")
            } catch {
                #expect(error.key == key && error.value == "" && error.file == "a command-line flag", "\(error)")
                #expect(error.description.contains("an empty item"), "\(error)")
            }
        }
    }
}
