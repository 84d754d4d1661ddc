import Foundation
import Hummingbird
import WorkFeedModel

/// `GET /`: the feed page (static HTML and JavaScript, docs/gateway.md, "The feed page"). It reads
/// the token from the URL fragment, which never reaches the server, and calls the API like the app.
enum FeedPageRoute {
    static let html: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html", subdirectory: "Page"),
            let data = try? Data(contentsOf: url)
        else { return Array("<!doctype html><title>WorkFeed</title><p>The feed page is missing from this build.".utf8) }
        return Array(String(decoding: data, as: UTF8.self).replacingOccurrences(of: kindsPlaceholder, with: kindsScript).utf8)
    }()

    /// Where the page reads each picture kind's texts from (its `#picture-kinds` block, empty in
    /// the file).
    static let kindsPlaceholder = #"<script type="application/json" id="picture-kinds">{}</script>"#

    /// The placeholder filled in from the kinds' declarations: `{"route": {"label": "Route",
    /// "drawing": "Drawing the route…"}, …}`. JSONEncoder writes `/` as `\/`, so no text of it
    /// can close the script element.
    static var kindsScript: String {
        let texts = Dictionary(
            uniqueKeysWithValues: PictureKind.allCases.map { ($0.rawValue, ["label": $0.declaration.label, "drawing": $0.declaration.drawing]) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings only: always encodes.
        let json = String(decoding: (try? encoder.encode(texts)) ?? Data("{}".utf8), as: UTF8.self)
        return kindsPlaceholder.replacingOccurrences(of: ">{}<", with: ">\(json)<")
    }

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
