import Hummingbird

/// Headers every answer carries, whatever the route or the error: `X-Content-Type-Options:
/// nosniff` (a browser never takes a picture or a problem document for something it would run)
/// and a `Content-Security-Policy` with `frame-ancestors 'none'` (no page may frame the gateway's;
/// the feed page's own policy gains it too).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var frameAncestors: String { "frame-ancestors 'none'" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        if let policy = response.headers[.contentSecurityPolicy] {
            if !policy.contains("frame-ancestors") { response.headers[.contentSecurityPolicy] = policy + "; " + Self.frameAncestors }
        } else {
            response.headers[.contentSecurityPolicy] = Self.frameAncestors
        }
        return response
    }
}
