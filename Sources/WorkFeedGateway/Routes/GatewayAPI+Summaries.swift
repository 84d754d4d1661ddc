import Hummingbird
import Logging
import WorkFeedModel
import WorkFeedWire

extension GatewayAPI {
    /// `GET /v1/summaries?period=&from=&to=&activity=`: the caller's totals per day, week, month
    /// or year in their own calendar (docs/summaries.md), with the change log's anchor. `from` and
    /// `to` are local dates (`2026-03-30`); a bad value is a 400 `bad-parameter` whose `parameter`
    /// names it.
    func summaries(_ request: Request, context: GatewayContext) async throws -> Response {
        let owner = try context.requireOwner()
        let summary = try Self.summaryRequest(request.uri.queryParameters, owner: owner)
        // The coordinator writes the report as the API gives it: sent on as it came.
        let bytes = try await ask(.summary) { () async throws(CoordinatorError) in try await clients.requestRaw(.summary, summary) }
        return try Self.json(object: bytes, from: .summary, logger: logger)
    }

    /// The SUMMARY a query asks for, every parameter checked (the coordinator checks them again).
    static func summaryRequest(_ query: Parameters, owner: String) throws(Problem) -> SummaryRequest {
        var period = SummaryPeriod.week
        if let text = query["period"] {
            guard let known = SummaryPeriod(rawValue: String(text)) else {
                throw Problem.badParameter(
                    "period must be one of \(SummaryPeriod.allCases.map(\.rawValue).joined(separator: ", ")), is '\(String(text.prefix(40)).escapedForDisplay)'",
                    parameter: "period")
            }
            period = known
        }
        var activity: ActivityType?
        if let text = query["activity"] {
            guard let known = ActivityType(rawValue: String(text)) else {
                throw Problem.badParameter(
                    "activity must be one of \(ActivityType.allCases.map(\.rawValue).joined(separator: ", ")), is '\(String(text.prefix(40)).escapedForDisplay)'",
                    parameter: "activity")
            }
            activity = known
        }
        let summary = SummaryRequest(
            owner: owner, period: period, from: query["from"].map(String.init), to: query["to"].map(String.init), activity: activity)
        do {
            _ = try summary.days()
        } catch {
            throw Problem.badParameter(error.message, parameter: error.field)
        }
        return summary
    }
}

extension Problem {
    /// A 400 `bad-parameter` whose `parameter` names the query parameter that is wrong.
    static func badParameter(_ detail: String, parameter: String) -> Problem {
        var problem = Problem.badRequest("bad-parameter", detail)
        problem.extra["parameter"] = .text(parameter)
        return problem
    }
}
