public import Foundation
import GRDB

// MARK: Replies kept for idempotency keys (docs/gateway.md, "Idempotency-Key"): the reply to a
// change a client sent with a key, by owner and key, so that the change sent again is answered
// with it instead of being carried out twice.

extension IndexTransaction {
    public mutating func keepReply(_ reply: [UInt8], owner: String, key: String, digest: String, now: Date) throws {
        try db.execute(
            sql: "INSERT INTO kept_reply (owner, key, digest, reply, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO NOTHING",
            arguments: [owner, key, digest, Data(reply), now.timeIntervalSince1970])
    }

    public mutating func forgetReplies(before: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM kept_reply WHERE at < ?", arguments: [before.timeIntervalSince1970])
        return db.changesCount
    }
}

extension IndexReader {
    public func keptReply(owner: String, key: String) throws -> KeptReply? {
        try Row.fetchOne(db, sql: "SELECT digest, reply FROM kept_reply WHERE owner = ? AND key = ?", arguments: [owner, key]).map { row in
            KeptReply(digest: row[0], reply: [UInt8](row[1] as Data))
        }
    }
}
