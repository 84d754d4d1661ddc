import Hummingbird
import Prometheus
import WorkFeedWire

extension GatewayAPI {
    /// `GET /healthz`: the process answers.
    func alive(_ request: Request, context: GatewayContext) async throws -> Response {
        try Self.json(["status": "alive"], headers: [.cacheControl: "no-store"])
    }

    /// `GET /readyz`: the coordinator answers (a load balancer sends feed traffic elsewhere while
    /// it does not; pictures are served either way).
    func ready(_ request: Request, context: GatewayContext) async throws -> Response {
        struct Pong: Decodable, Sendable { var pong: Bool }
        _ = try await ask(.ping, [String: String](), as: Pong.self)
        return try Self.json(["status": "ready"], headers: [.cacheControl: "no-store"])
    }

    /// `GET /metrics`: Prometheus text format.
    func prometheus(_ request: Request, context: GatewayContext) async throws -> Response {
        let text = metrics.registry.emitToBuffer()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
}
