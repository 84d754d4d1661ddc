import Testing
import WorkFeedConfig

/// Listen addresses are parsed, not prefix-matched (issue 13, finding 3).
@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("tcp://127.0.0.1:5555", true), ("tcp://127.1.2.3:*", true), ("tcp://[::1]:5555", true), ("tcp://[::ffff:127.0.0.1]:1", true),
        ("ipc:///run/workfeed/control", true), ("inproc://x", true),
        ("tcp://0.0.0.0:5555", false), ("tcp://*:5555", false), ("tcp://10.1.2.3:5555", false), ("tcp://[::]:5555", false),
        ("tcp://localhost:5555", false), ("tcp://eth0:5555", false), ("tcp://128.0.0.1:5555", false),
    ])
    func loopbackIsDecidedFromTheParsedAddress(endpoint: String, loopback: Bool) throws {
        #expect(try ListenAddress(zeroMQ: endpoint).isLoopback == loopback)
    }

    @Test(arguments: [
        "tcp://127.0.0.1:0;0.0.0.0:5555", "tcp://127.0.0.1:5555,tcp://0.0.0.0:5556", "tcp://127.0.0.1:", "tcp://127.0.0.1:99999",
        "tcp://127.0.0.1:55a", "tcp://127.0.0.1", "tcp:// 127.0.0.1:5", "tcp://127.0.0.1:5555/x", "udp://127.0.0.1:5", "tcp://[::1:5",
        "127.0.0.1:5555", "tcp://127.0.0.1@0.0.0.0:5555", "ipc://",
    ])
    func whatIsNotOneEndpointIsRefused(endpoint: String) {
        #expect(throws: ListenAddressError.self) { try ListenAddress(zeroMQ: endpoint) }
    }

    /// The bypass of the finding: a loopback prefix followed by a second, public address.
    @Test func theBypassIsRefusedAtLoadWithTheReason() async throws {
        do {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: ["WORKFEED_LISTEN_CONTROL": "tcp://127.0.0.1:0;0.0.0.0:5555"])
            Issue.record("accepted the bypass")
        } catch {
            #expect(error.key == "listen.control")
            #expect(error.description.contains("a listen address is one HOST:PORT"), "\(error)")
            #expect(error.file == "environment variable WORKFEED_LISTEN_CONTROL")
        }
        // Even with keys: it is not one endpoint.
        do {
            _ = try await CoordinatorConfiguration.load(
                file: nil, environment: ["WORKFEED_LISTEN_WORKERS": "tcp://127.0.0.1:0;0.0.0.0:5555", "WORKFEED_SECURITY_KEY_FILE": "/k"])
            Issue.record("accepted the bypass with keys")
        } catch {
            #expect(error.key == "listen.workers")
        }
    }

    @Test func withKeysAnyOneEndpointMayBeUsed() async throws {
        let configuration = try await CoordinatorConfiguration.load(
            file: nil, environment: ["WORKFEED_LISTEN_WORKERS": "tcp://0.0.0.0:5555", "WORKFEED_SECURITY_KEY_FILE": "/k"])
        #expect(configuration.workerEndpoint == "tcp://0.0.0.0:5555")
    }

    @Test func metricsBeyondLoopbackOnlyWhenAllowed() async throws {
        do {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: ["WORKFEED_METRICS_LISTEN": "0.0.0.0:9464"])
            Issue.record("served metrics on every interface without being asked to")
        } catch {
            #expect(error.key == "metrics.listen")
            #expect(error.description.contains("metrics.allow_remote"), "\(error)")
        }
        let allowed = try await CoordinatorConfiguration.load(
            file: nil, environment: ["WORKFEED_METRICS_LISTEN": "0.0.0.0:9464", "WORKFEED_METRICS_ALLOW_REMOTE": "true"])
        #expect(allowed.metricsAllowRemote)
        await #expect(throws: ConfigurationError.self) {
            _ = try await WorkerConfiguration.load(file: nil, environment: ["WORKFEED_METRICS_LISTEN": "10.0.0.1:9465"])
        }
        await #expect(throws: ConfigurationError.self) {
            _ = try await CoordinatorConfiguration.load(file: nil, environment: ["WORKFEED_METRICS_LISTEN": "127.0.0.1:9464;x"])
        }
    }

    /// A configuration built in code (not loaded) is checked at start too.
    @Test func aConfigurationMadeInCodeIsCheckedWhenCheckedAtStart() {
        var configuration = CoordinatorConfiguration()
        configuration.controlEndpoint = "tcp://127.0.0.1:0;0.0.0.0:5555"
        #expect(configuration.listenAddressProblem()?.key == "listen.control")
        configuration.controlEndpoint = "tcp://127.0.0.1:5556"
        #expect(configuration.listenAddressProblem() == nil)
    }
}
