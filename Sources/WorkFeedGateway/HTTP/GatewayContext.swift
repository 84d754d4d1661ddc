import Hummingbird

/// The request context: Hummingbird's core storage, and the owner a valid bearer token named
/// (set by ``TokenMiddleware``; `nil` on public routes).
struct GatewayContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var owner: String?
    /// The peer's IP address (a proxy's, behind one: ``ClientReads/client(peer:forwardedFor:trustedProxies:)``).
    let peer: String?

    init(source: Source) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }

    /// Uploads are bounded by the handler (``GatewayConfiguration/uploadMaximumBytes``); other
    /// bodies are small.
    var maxUploadSize: Int { 64 * 1024 }

    /// The owner of an authenticated route. ``TokenMiddleware`` sets it before any owner route
    /// runs; a route reached without one is a programming error reported as 401, never a crash.
    func requireOwner() throws(Problem) -> String {
        guard let owner else { throw Problem.unauthorized("this endpoint needs a bearer token", reason: "missing") }
        return owner
    }
}
