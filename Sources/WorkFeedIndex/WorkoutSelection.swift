import Foundation
import GRDB
import WorkFeedModel

/// The workouts an ``EnqueueRequest`` names (ids, activities, a start-time window, an owner), as
/// an SQL condition on `workout w` with its named arguments: ENQUEUE and the STATUS that follows
/// its jobs select the same workouts.
struct WorkoutSelection {
    /// The conditions, each on `w`; none selects every workout.
    let conditions: [String]
    let arguments: StatementArguments

    /// The conditions joined, `1` for none.
    var sql: String { conditions.isEmpty ? "1" : conditions.joined(separator: " AND ") }

    init(_ request: EnqueueRequest) {
        var conditions: [String] = []
        var arguments: StatementArguments = [:]
        if let ids = request.ids {
            conditions.append("w.id IN (SELECT value FROM json_each(:ids))")
            arguments += ["ids": Self.jsonArray(ids.map(\.description))]
        }
        if let activities = request.activities {
            conditions.append("w.activity IN (SELECT value FROM json_each(:activities))")
            arguments += ["activities": Self.jsonArray(activities.map(\.rawValue))]
        }
        if let since = request.since {
            conditions.append("w.start_at >= :since")
            arguments += ["since": since.timeIntervalSince1970]
        }
        if let until = request.until {
            conditions.append("w.start_at < :until")
            arguments += ["until": until.timeIntervalSince1970]
        }
        if let owner = request.owner {
            conditions.append("w.owner = :owner")
            arguments += ["owner": owner]
        }
        self.conditions = conditions
        self.arguments = arguments
    }

    /// Words (ids, activity names: no quotes or backslashes in them) as a JSON array for `json_each`.
    static func jsonArray(_ words: [String]) -> String {
        "[" + words.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }
}
