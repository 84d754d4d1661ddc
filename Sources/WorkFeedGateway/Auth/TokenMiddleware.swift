import Foundation
import Hummingbird
import WorkFeedModel
import WorkFeedTokens

/// Lets a request through only with `Authorization: Bearer <token>` holding a valid ``OwnerToken``
/// (signed with a configured algorithm, ``TokenVerifier``; unexpired; a valid `sub`), and puts its owner in the context. Anything else is 401 with
/// problem details saying why (no token, malformed, wrongly signed, expired), with the why as a
/// code in `reason` (`missing`, ``TokenError/Reason``) for clients to switch on: the feed page
/// says "your sign-in expired" on `expired`.
struct TokenMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let verifier: TokenVerifier

    func handle(_ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem.unauthorized("no Authorization header: send Authorization: Bearer <token>", reason: "missing")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Problem.unauthorized("the Authorization header must be Bearer <token>", reason: TokenError.Reason.malformed.rawValue)
        }
        let token: OwnerToken
        do {
            token = try verifier.verify(String(parts[1]).trimmingCharacters(in: .whitespaces))
        } catch {
            throw Problem.unauthorized(error.message, reason: error.reason.rawValue)
        }
        var context = context
        context.owner = token.owner
        return try await next(request, context)
    }
}
