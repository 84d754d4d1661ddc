import Foundation
import Testing
import WorkFeedIndex
import WorkFeedIndexPostgres
import WorkFeedTesting

/// Who runs where: coordinators register, renew and leave, against a real server.
@Suite(.enabled(if: PostgresTestServer.isInstalled, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresCoordinatorsTests {
    @Test func coordinatorsRegisterRenewAndLeave() throws {
        let fixture = try PostgresFixture()
        let session = try fixture.session("c1")
        #expect(try PostgresCoordinators.all(in: session).isEmpty)
        try PostgresCoordinators.register("host-a:41:boot-1", endpoints: "tcp://10.0.0.1:5555", in: session)
        Thread.sleep(forTimeInterval: 0.05)
        try PostgresCoordinators.register("host-b:77:boot-9", endpoints: "tcp://10.0.0.2:5555", in: session)
        #expect(try PostgresCoordinators.all(in: session).map(\.id) == ["host-b:77:boot-9", "host-a:41:boot-1"])

        Thread.sleep(forTimeInterval: 0.05)
        #expect(try PostgresCoordinators.seen("host-a:41:boot-1", in: session))
        let listed = try PostgresCoordinators.all(in: session)
        #expect(listed.map(\.id) == ["host-a:41:boot-1", "host-b:77:boot-9"])
        #expect(listed[0].seenAt > listed[0].startedAt)

        // Registered again (restarted on the same id): new endpoints, one row.
        try PostgresCoordinators.register("host-b:77:boot-9", endpoints: "tcp://10.0.0.3:5555", in: session)
        #expect(try PostgresCoordinators.all(in: session).first { $0.id == "host-b:77:boot-9" }?.endpoints == "tcp://10.0.0.3:5555")
        #expect(try PostgresCoordinators.deregister("host-b:77:boot-9", in: session))
        #expect(try PostgresCoordinators.deregister("host-b:77:boot-9", in: session) == false)
        #expect(try PostgresCoordinators.seen("host-b:77:boot-9", in: session) == false)
        #expect(try PostgresCoordinators.all(in: session).map(\.id) == ["host-a:41:boot-1"])
    }
}
