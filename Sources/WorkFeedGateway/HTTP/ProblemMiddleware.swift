import Hummingbird
import Logging

/// Turns every error into problem details: a ``Problem`` as it is, Hummingbird's own errors (no
/// such route, a body over the limit) into the matching problem, and anything else into a 500
/// whose cause goes to the log only.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return try problem.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let problem: Problem =
                switch error.status {
                case .notFound: .notFound("no such endpoint: \(request.method) \(request.uri.path.prefix(200))")
                case .contentTooLarge: Problem("too-large", "The request body is too large", status: .contentTooLarge, detail: "the body is over the limit")
                case .methodNotAllowed: Problem("method-not-allowed", "Method not allowed", status: .methodNotAllowed, detail: "\(request.method) is not allowed here")
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
}
