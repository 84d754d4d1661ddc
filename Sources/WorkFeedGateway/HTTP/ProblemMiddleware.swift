import Hummingbird
import Logging

/// Turns every error into problem details: a ``Problem`` as it is, Hummingbird's own errors (no
/// such route, a body over the limit) into the matching problem, and anything else into a 500
/// whose cause goes to the log only.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Every path template (`{name}` matches one non-empty segment) with the methods it answers: a request
    /// for a known path with another method is 405 with `Allow`.
    let routes: [(path: String, allowed: [HTTPRequest.Method])]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return try problem.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let problem: Problem =
                switch error.status {
                case .notFound:
                    if let allowed = allowedMethods(for: request.uri.path) {
                        Self.methodNotAllowed(request, allowed: allowed)
                    } else {
                        .notFound("no such endpoint: \(request.method) \(request.uri.path.prefix(200))")
                    }
                case .contentTooLarge:
                    Problem("too-large", "The request body is too large", status: .contentTooLarge, detail: "the body is over the limit")
                case let status where status.code < 500: Problem("bad-request", "The request is not valid", status: status, detail: "\(error)")
                default: .internalError()
                }
            if error.status.code >= 500 { context.logger.error("request failed", metadata: ["error": "\(error)"]) }
            return try problem.response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path.prefix(200))"])
            return try Problem.internalError().response(from: request, context: context)
        }
    }

    /// The methods a known path answers, or `nil` when no route has this path.
    func allowedMethods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for route in routes {
            let template = route.path.split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == segments.count else { continue }
            // A `{name}` segment names something: an empty one (`/v1/pictures/`) matches no route.
            if zip(template, segments).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }) { return route.allowed }
        }
        return nil
    }

    static func methodNotAllowed(_ request: Request, allowed: [HTTPRequest.Method]) -> Problem {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        var problem = Problem(
            "method-not-allowed", "Method not allowed", status: .methodNotAllowed,
            detail: "\(request.method.rawValue.prefix(20)) is not allowed on \(request.uri.path.prefix(200)): \(allow)")
        problem.headers[.allow] = allow
        return problem
    }
}
