import Foundation
import PostgresNIO
import WorkFeedIndex

// A PostgreSQL row's cells as ``StoredValue``s, which the index's own decoders read
// (``IndexReader/workoutRecord(_:)``, ``IndexReader/ownerSettings(_:)``): one reader of each shape
// of row, with the same errors, whichever backend stored it.

extension StoredValue {
    /// A cell as a stored value: booleans, integers, floating point, text, uuids (as SQLite keeps
    /// them: lower-case text), bytes, and times (seconds since 1970).
    init(_ cell: PostgresCell, column: String) throws(IndexError) {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        do {
            switch cell.dataType {
            case .bool: self = .bool(try cell.decode(Bool.self))
            case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
            case .float4, .float8: self = .real(try cell.decode(Double.self))
            case .text, .varchar, .name: self = .text(try cell.decode(String.self))
            case .uuid: self = .text(try cell.decode(UUID.self).uuidString.lowercased())
            case .bytea: self = .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
            case .timestamptz, .timestamp: self = .real(try cell.decode(Date.self).timeIntervalSince1970)
            default: throw IndexError(.failed, "column \(column) has type \(cell.dataType), which the index does not read")
            }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "column \(column) could not be read: \(String(reflecting: error))", cause: error)
        }
    }

    /// Binds this value for a column of the type the schema gives it.
    func bind(into bindings: inout PostgresBindings) {
        switch self {
        case .null: bindings.appendNull()
        case .bool(let flag): bindings.append(flag)
        case .integer(let number): bindings.append(number)
        case .real(let number): bindings.append(number)
        case .text(let text): bindings.append(text)
        case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
        }
    }
}

extension PostgresRow {
    /// The row's cells from `from` on, as stored values.
    func storedValues(from: Int = 0, names: [String]) throws(IndexError) -> [StoredValue] {
        let cells = makeRandomAccess()
        var values: [StoredValue] = []
        values.reserveCapacity(names.count)
        for (offset, name) in names.enumerated() { values.append(try StoredValue(cells[from + offset], column: name)) }
        return values
    }
}

extension IndexReader {
    /// ``workoutColumns`` one by one.
    static let workoutColumnNames = workoutColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}
