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

    /// The page's handler. Its `Content-Security-Policy` lets images come from the gateway and,
    /// with `pictures.redirect`, from the origin the picture URLs redirect to (the bucket's, or
    /// `pictures.redirect_base`'s): a browser checks `img-src` against every URL of a redirect,
    /// so with `'self'` alone it blocked every picture the gateway sent it elsewhere for.
    /// - Parameter pictureOrigin: `scheme://host[:port]` of the redirect target, or `nil`.
    static func page(pictureOrigin: String?) -> @Sendable (Request, GatewayContext) async throws -> Response {
        let policy = self.policy(pictureOrigin: pictureOrigin)
        return { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache", .contentSecurityPolicy: policy],
                body: .init(byteBuffer: ByteBuffer(bytes: html)))
        }
    }

    /// The page's policy: scripts, styles and data from the gateway alone; images from it, `data:`
    /// URLs and the pictures' redirect origin.
    static func policy(pictureOrigin: String?) -> String {
        let images = ["'self'", "data:"] + (pictureOrigin.map { [$0] } ?? [])
        return "default-src 'self'; img-src \(images.joined(separator: " ")); style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'"
    }

    /// The origin (`scheme://host[:port]`) of a URL, as a CSP source expression names it; `nil`
    /// when the URL has no http(s) scheme and host, or holds what a policy cannot carry.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host?.lowercased(), !host.isEmpty,
            host.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || ".-[]:".unicodeScalars.contains($0) }),
            host.unicodeScalars.allSatisfy(\.isASCII)
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
