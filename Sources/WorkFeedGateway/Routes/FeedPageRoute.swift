import Foundation
import Hummingbird

/// `GET /`: the feed page (static HTML and JavaScript, docs/gateway.md, "The feed page"). It reads
/// the token from the URL fragment, which never reaches the server, and calls the API like the app.
enum FeedPageRoute {
    static let html: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html", subdirectory: "Page"),
            let data = try? Data(contentsOf: url)
        else { return Array("<!doctype html><title>WorkFeed</title><p>The feed page is missing from this build.".utf8) }
        return Array(data)
    }()

    @Sendable static func page(_ request: Request, context: GatewayContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: html)))
    }
}
