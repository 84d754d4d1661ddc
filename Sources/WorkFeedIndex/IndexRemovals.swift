public import Foundation
import GRDB

// MARK: Removals that wait (docs/operations.md): what the picture store refused to remove, kept
// until it is done, across restarts.

extension IndexTransaction {
    public mutating func keepRemovals(_ names: [String], now: Date) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO removal (name, since) VALUES (?, ?) ON CONFLICT (name) DO NOTHING")
        for name in names { try statement.execute(arguments: [name, now.timeIntervalSince1970]) }
    }

    public mutating func forgetRemovals(_ names: [String]) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM removal WHERE name = ?")
        for name in names { try statement.execute(arguments: [name]) }
    }
}

extension IndexReader {
    public func keptRemovals(limit: Int) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM removal ORDER BY since, name LIMIT ?", arguments: [limit])
    }

    public func keptRemovalCount() throws -> (count: Int, oldest: Date?) {
        let row = try Row.fetchOne(db, sql: "SELECT count(*), min(since) FROM removal")
        let count: Int = row?[0] ?? 0
        let oldest: Double? = row?[1]
        return (count, oldest.map(Date.init(timeIntervalSince1970:)))
    }
}
