/// Turns a feature's geometry commands (spec 4.3) into ``VectorTileFeature/points`` and
/// ``VectorTileFeature/parts``, enforcing the grammar of spec 4.3.4 for the feature's type.
///
/// Each command integer is `id | count << 3`, followed by `count` pairs of zigzag-encoded deltas
/// (none for ClosePath). The cursor starts at (0, 0) for each feature and carries across parts.
struct GeometryDecoder {
    enum Command: UInt32 {
        case moveTo = 1
        case lineTo = 2
        case closePath = 7

        var name: String {
            switch self {
            case .moveTo: "MoveTo"
            case .lineTo: "LineTo"
            case .closePath: "ClosePath"
            }
        }
    }

    /// Where the grammar is: which command may come next.
    private enum State {
        /// Before the first command, after a finished line or a closed ring.
        case start
        /// After a MoveTo that opened a line or ring.
        case moved
        /// After at least one LineTo.
        case drawn
        /// A point geometry after its single MoveTo: nothing may follow.
        case finished
    }

    private var reader: ProtobufReader
    let type: VectorTileGeometryType
    private var points: [SIMD2<Int32>] = []
    private var parts: [Int32] = []
    private var cursor = SIMD2<Int32>(0, 0)
    private var state = State.start

    init(reader: ProtobufReader, type: VectorTileGeometryType) {
        self.reader = reader
        self.type = type
    }

    /// Decodes into `points` and `parts`, which the caller passes in empty and reuses from
    /// feature to feature, so that their capacity is allocated once per tile; the caller copies
    /// the result out at its exact size.
    mutating func decode(into points: inout [SIMD2<Int32>], parts: inout [Int32]) throws(TileError) {
        swap(&self.points, &points)
        swap(&self.parts, &parts)
        defer {
            swap(&self.points, &points)
            swap(&self.parts, &parts)
        }
        // A point takes two varints of a byte or more: an upper bound that the data vouch for.
        self.points.reserveCapacity(reader.remaining / 2)
        try decode()
    }

    private mutating func decode() throws(TileError) {
        while !reader.isAtEnd {
            let offset = reader.position
            let integer = try reader.varint32("a geometry command")
            guard let command = Command(rawValue: integer & 7) else {
                throw ProtobufReader.failure(at: offset, "unknown geometry command \(integer & 7) (only 1, 2 and 7 exist)")
            }
            let count = Int(integer >> 3)
            try check(command, count: count, at: offset)
            if command == .closePath {
                state = .start
                continue
            }
            // Two varints of at least one byte each per point: refuse a count the data cannot hold
            // before reading (or reserving) anything for it.
            guard count <= reader.remaining / 2 else {
                throw ProtobufReader.failure(
                    at: offset, "\(command.name) with count \(count) needs \(2 * count) integers, but only \(reader.remaining) bytes remain"
                )
            }
            if command == .moveTo {
                parts.append(Int32(points.count))
            }
            for _ in 0..<count {
                let dx = try reader.varint32("a geometry delta").zigzagDecoded
                let dy = try reader.varint32("a geometry delta").zigzagDecoded
                cursor &+= SIMD2(dx, dy)
                points.append(cursor)
            }
            switch (type, command) {
            case (.point, _): state = .finished
            case (_, .moveTo): state = .moved
            default: state = .drawn
            }
        }
        try checkEnd()
    }

    /// Whether `command` may come now, by spec 4.3.4 for the geometry type.
    private func check(_ command: Command, count: Int, at offset: Int) throws(TileError) {
        func refuse(_ message: String) -> TileError {
            ProtobufReader.failure(at: offset, message)
        }
        switch command {
        case .moveTo:
            guard count > 0 else { throw refuse("MoveTo with count 0") }
            switch type {
            case .point:
                guard state == .start else { throw refuse("a second command in a point geometry (it is a single MoveTo)") }
            case .lineString, .polygon:
                guard count == 1 else { throw refuse("MoveTo with count \(count) in a \(type.name) (it must be 1)") }
                guard state != .moved else { throw refuse("MoveTo right after MoveTo in a \(type.name) (a LineTo must come between)") }
                guard type == .lineString || state == .start else {
                    throw refuse("a polygon ring not closed by ClosePath before the next MoveTo")
                }
            case .unknown:
                break
            }
        case .lineTo:
            guard count > 0 else { throw refuse("LineTo with count 0") }
            guard type != .point else { throw refuse("LineTo in a point geometry") }
            guard state == .moved || state == .drawn else { throw refuse("LineTo without a MoveTo before it") }
        case .closePath:
            guard count == 1 else { throw refuse("ClosePath with count \(count) (it must be 1)") }
            switch type {
            case .polygon:
                guard state == .drawn else { throw refuse("ClosePath without a MoveTo and LineTo before it") }
                let ringStart = Int(parts.last ?? 0)
                guard points.count - ringStart >= 3 else {
                    throw refuse("a polygon ring of \(points.count - ringStart) points (a ring needs 3 or more)")
                }
            case .unknown:
                guard state != .start else { throw refuse("ClosePath without a MoveTo before it") }
            case .point, .lineString:
                throw refuse("ClosePath in a \(type.name) (only polygons close rings)")
            }
        }
    }

    private func checkEnd() throws(TileError) {
        let offset = reader.end
        switch (type, state) {
        case (.lineString, .moved):
            throw ProtobufReader.failure(at: offset, "a line of one point (MoveTo without LineTo) at the end of the geometry")
        case (.polygon, .moved), (.polygon, .drawn):
            throw ProtobufReader.failure(at: offset, "a polygon ring not closed by ClosePath at the end of the geometry")
        default:
            break
        }
    }
}

extension VectorTileGeometryType {
    /// As errors and logs name it.
    var name: String {
        switch self {
        case .unknown: "geometry of unknown type"
        case .point: "point geometry"
        case .lineString: "line geometry"
        case .polygon: "polygon geometry"
        }
    }
}
