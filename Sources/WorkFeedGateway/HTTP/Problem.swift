import Foundation
import Hummingbird
import WorkFeedConfig
import WorkFeedWire
import WorkFeedThreads

/// An error answered as RFC 9457 problem details (`application/problem+json`): a stable `type`
/// (a URN a client can switch on), a `title` for it, the HTTP `status`, a `detail` saying what
/// exactly is wrong, and extra members where they help (`line`, `field` of a broken upload,
/// `reason` of a failed picture). Never a stack trace.
struct Problem: Error, HTTPResponseError, Sendable {
    var type: String
    var title: String
    var status: HTTPResponse.Status
    var detail: String
    var extra: [String: ProblemValue] = [:]
    var headers: HTTPFields = [:]

    init(_ name: String, _ title: String, status: HTTPResponse.Status, detail: String, extra: [String: ProblemValue] = [:]) {
        type = Self.type(name)
        self.title = title
        self.status = status
        self.detail = detail
        self.extra = extra
    }

    /// `urn:workfeed:problem:<name>`: stable, documented in docs/openapi.yaml.
    static func type(_ name: String) -> String { "urn:workfeed:problem:" + name }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var object: [String: ProblemValue] = extra
        object["type"] = .text(type)
        object["title"] = .text(title)
        object["status"] = .number(Int(status.code))
        object["detail"] = .text(detail)
        object["instance"] = .text(String(request.uri.path.prefix(200)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(object)) ?? Data(#"{"status":500,"type":"urn:workfeed:problem:internal"}"#.utf8)
        var headers = headers
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A member of problem details beyond the standard ones.
enum ProblemValue: Encodable, Sendable {
    case text(String)
    case number(Int)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }
}

extension Problem {
    /// - Parameter reason: why, as a code a client switches on: `missing`, or a ``TokenError/Reason``
    ///   (`malformed`, `bad-signature`, `expired`, `not-yet-valid`).
    static func unauthorized(_ detail: String, reason: String) -> Problem {
        var problem = Problem(
            "unauthorized", "A valid bearer token is needed", status: .unauthorized, detail: detail, extra: ["reason": .text(reason)])
        problem.headers[.wwwAuthenticate] = #"Bearer realm="workfeed""#
        return problem
    }

    static func notFound(_ detail: String) -> Problem {
        Problem("not-found", "Not found", status: .notFound, detail: detail)
    }

    static func badRequest(_ name: String, _ detail: String) -> Problem {
        Problem(name, "The request is not valid", status: .badRequest, detail: detail)
    }

    /// 503: nothing was done, and nothing will be (the request was dropped and its deadline has
    /// passed), so the client may retry it. The detail never says where the coordinator is.
    static func unavailable() -> Problem {
        var problem = Problem(
            "coordinator-unavailable", "The coordinator does not answer; try again", status: .serviceUnavailable,
            detail: "the coordinator did not answer in time; nothing was done, so the request can be sent again")
        problem.headers[.retryAfter] = "2"
        return problem
    }

    /// 503 for a change the coordinator did not answer in time. It carries out no request past
    /// its deadline, so the change was almost surely not made; only a commit in the instant
    /// before the deadline whose answer came late was (docs/gateway.md, "Idempotency-Key"). Sent
    /// again with the same `Idempotency-Key`, it is made exactly once.
    static func unavailableChange() -> Problem {
        var problem = Problem(
            "coordinator-unavailable", "The coordinator does not answer; try again", status: .serviceUnavailable,
            detail:
                "the coordinator did not answer in time; it makes no change past the request's deadline, so this one was almost surely not made: send it again with the same Idempotency-Key to have it made exactly once"
        )
        problem.headers[.retryAfter] = "2"
        return problem
    }

    /// 503: the gateway's own blocking work is full (uploads being read, picture reads;
    /// ``BlockingWork``): nothing was done, so the client may send it again after `Retry-After`.
    static func busy(_ error: any Error) -> Problem {
        var problem = Problem(
            "busy", "The gateway is busy; try again", status: .serviceUnavailable,
            detail: (error as? BlockingWorkError).map { "\($0)" } ?? "the gateway is busy; nothing was done, so the request can be sent again")
        problem.headers[.retryAfter] = "1"
        return problem
    }

    /// 503: the picture store (a bucket, a mount) cannot be read now: nothing was done, so the
    /// client may ask again after `Retry-After`. The detail does not name the store; the log does.
    static func storeUnavailable() -> Problem {
        var problem = Problem(
            "store-unavailable", "The picture store does not answer; try again", status: .serviceUnavailable,
            detail: "the picture store cannot be read now; ask again shortly")
        problem.headers[.retryAfter] = "2"
        return problem
    }

    static func internalError() -> Problem {
        Problem("internal", "Internal error", status: .internalServerError, detail: "the gateway failed to answer; the error is in its log")
    }

    /// The problem for a coordinator failure: 503 when it did not answer; otherwise by the code
    /// it refused with (the table below), never by its words. A refusal
    /// without a code (a coordinator of before codes, or a code this gateway does not know) is 500.
    /// - Parameter notFound: the 404's detail (the coordinator's message is for the log).
    static func from(_ error: CoordinatorError, notFound: String = "not found") -> Problem {
        switch error {
        case .unavailable: .unavailable()
        case .refused(let code?, _): from(code, notFound: notFound)
        case .refused(nil, _): .internalError()
        }
    }

    /// The problem for each code of the coordinator's refusals: the one table of them.
    static func from(_ code: ControlErrorCode, notFound: String = "not found") -> Problem {
        switch code {
        case .notFound: .notFound(notFound)
        // Not carried out, and it may be sent again: a deadline passed, or the coordinator is full.
        case .expired, .busy: .unavailable()
        // The gateway checks what it sends, so these are its bugs (or the coordinator's): logged.
        case .badRequest, .forbidden, .internal: .internalError()
        // The upload is checked by the same rule before it is sent (``emptyWorkout(_:file:)``);
        // a coordinator of a newer rule may still refuse one: the client's file, not a fault.
        case .emptyWorkout:
            Problem("empty-workout", "The file has nothing to show", status: .badRequest, detail: "no track and no figures: not stored")
        case .idempotencyKeyReused:
            Problem(
                "idempotency-key-reused", "The Idempotency-Key was sent with another request", status: .unprocessableContent,
                detail:
                    "this Idempotency-Key was used for another request: send a new key with each new request, the same key only with that request again"
            )
        }
    }
}
