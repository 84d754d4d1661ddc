import Foundation
import WorkFeedIndex
import WorkFeedModel
import WorkFeedWire

/// The control commands that only read the index (FEED, SHOW, CHANGES), answered the same way on
/// the index thread (inside a turn's transaction) and on the read thread (``ReadService``).
struct ControlReads {
    let cacheDirectory: String
    let pictureSize: PictureSize

    /// The commands answered here.
    static let commands: Set<ControlCommand> = [.feed, .show, .changes]

    /// - Parameter anchor: the index's current anchor, as the reader sees it.
    /// - Throws: ``ControlRequestError`` for a request the coordinator refuses, or the index's error.
    func answer(_ request: ControlRequest, reader: IndexReader, anchor: Int64) throws -> [UInt8] {
        switch request.command {
        case .show:
            let body = try Self.decode(ShowRequest.self, request)
            guard let workout = try reader.workout(body.id, owner: try Self.checkOwner(body.owner, "SHOW")) else {
                throw ControlRequestError("no workout with id \(body.id)")
            }
            let item = WorkoutWithPictures(workout: workout, pictures: try reader.pictures(of: body.id))
            return try ControlCodec.encode(ShowReply(item: item, cacheDirectory: cacheDirectory, pictureSize: pictureSize))

        case .feed:
            let body = try Self.decode(FeedRequest.self, request)
            guard (1...1000).contains(body.limit) else { throw ControlRequestError("FEED: limit must be 1...1000, is \(body.limit)") }
            let page: (workouts: [WorkoutRecord], next: String?)
            do {
                page = try reader.feed(limit: body.limit, cursor: body.cursor, owner: try Self.checkOwner(body.owner, "FEED"))
            } catch let error as IndexError {
                throw ControlRequestError("FEED: \(error)")
            }
            let pictures = try reader.pictures(of: page.workouts.map(\.id))
            if body.summary == true {
                let items = page.workouts.map { WorkoutSummaryItem($0, pictures: pictures[$0.id] ?? []) }
                return FeedSummaryWriter.encode(FeedSummaryReply(items: items, next: page.next, pictureSize: pictureSize))
            }
            let items = page.workouts.map { WorkoutWithPictures(workout: $0, pictures: pictures[$0.id] ?? []) }
            return try ControlCodec.encode(FeedReply(items: items, next: page.next, cacheDirectory: cacheDirectory, pictureSize: pictureSize))

        case .changes:
            let body = try Self.decode(ChangesRequest.self, request)
            guard (1...100_000).contains(body.limit) else { throw ControlRequestError("CHANGES: limit must be 1...100000") }
            guard body.since >= 0 else { throw ControlRequestError("CHANGES: since must be an anchor, 0 or more") }
            let page = try reader.changes(since: body.since, limit: body.limit, owner: try Self.checkOwner(body.owner, "CHANGES"))
            return try ControlCodec.encode(ChangesReply(changes: page.changes, more: page.more, anchor: anchor))

        default:
            throw ControlRequestError("\(request.command.rawValue) is not a read")
        }
    }

    /// The owner a request names, checked (``Owner/problem(with:)``).
    static func checkOwner(_ owner: String?, _ command: String) throws -> String? {
        guard let owner else { return nil }
        if let problem = Owner.problem(with: owner) { throw ControlRequestError("\(command): owner: \(problem)") }
        return owner
    }

    static func decode<T: Decodable>(_ type: T.Type, _ request: ControlRequest) throws -> T {
        do {
            return try ControlCodec.decode(type, from: request.body)
        } catch {
            throw ControlRequestError("\(request.command.rawValue): the JSON body is not a \(T.self): \(error)")
        }
    }
}
