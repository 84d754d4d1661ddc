import Foundation
import Logging
import Testing
import WorkFeedConfig
import WorkFeedGateway
import WorkFeedWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// With keys, the gateway talks CURVE to the coordinator (control socket and event stream alike),
/// with a key of its own on the coordinator's allow-list, like workctl; a gateway whose key is not
/// on it gets nothing, and says so through /readyz.
@Suite(.serialized) struct CurveTests {
    @Test func theGatewayTalksCurveWithAnAllowedKey() async throws {
        let system = try await GatewaySystem(curve: true)
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            #expect(upload.status == 201)
            let id = try #require(upload.uploaded["id"] as? String)
            // The picture request waits on the (encrypted) event stream and gets its picture.
            let picture = try await system.get("/v1/workouts/\(id)/pictures/route/light?wait=10", as: "alice")
            #expect(picture.status == 200)
            #expect(try await system.get("/readyz").status == 200)

            // Another gateway with a key the coordinator does not know: no answer, so not ready.
            let stranger = try CurveKeyPair.generate()
            let file = system.directory.appendingPathComponent("stranger.key").path
            try stranger.fileContents.write(toFile: file, atomically: true, encoding: .utf8)
            var configuration = system.gateway.configuration
            configuration.listen = "127.0.0.1:0"
            configuration.keyFile = file
            configuration.coordinatorTimeoutMilliseconds = 300
            var logger = Logger(label: "stranger")
            logger.logLevel = .critical
            let other = try Gateway(configuration: configuration, context: system.context, logger: logger)
            let server = Task { try await other.run(signals: false) }
            var port: Int?
            for _ in 0..<500 where port == nil {
                port = other.port
                if port == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            let url = URL(string: "http://127.0.0.1:\(try #require(port))/readyz")!
            let (_, response) = try await GatewaySystem.session.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 503)
            await other.stop()
            _ = await server.result
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }
}
