import Foundation
import GRDB
import WorkFeedModel

/// Turns the columns of one stored row into model values, the one way every query does it.
///
/// A value its column cannot hold (an unknown status, kind or theme, a NULL where a value must
/// be, text where a number must be, an unparseable workout id) throws
/// ``IndexError/corruptRow(table:row:column:value:)`` naming the table, the row and the column:
/// never a trap, never a default in its place, never a row left out of an answer.
///
/// Columns are read by position: a lookup by name lower-cases and hashes the name for every value,
/// which was most of the time of a feed page. Over a ``RawStatement`` (the hot paths: leasing), the
/// `raw` variants read SQLite's own pointers.
struct RowDecoder<Source: StoredRow> {
    let table: String
    private let source: Source
    /// The position of the column that names the row in errors (its id).
    private let idColumn: Int

    /// Decodes `source`, a row of `table`; the column at `idColumn` names the row in errors.
    init(_ source: Source, table: String, idColumn: Int = 0) {
        self.table = table
        self.source = source
        self.idColumn = idColumn
    }

    private func stored(_ index: Int) -> DatabaseValue { source.storedValue(index) }

    // MARK: Values (of a GRDB row; of a raw statement too, through GRDB values)

    /// A value that must be there.
    func value<Value: DatabaseValueConvertible>(_ index: Int, _ column: String) throws(IndexError) -> Value {
        let stored = stored(index)
        guard let value = Value.fromDatabaseValue(stored) else { throw corrupt(column, stored) }
        return value
    }

    /// A value that may be NULL.
    func optionalValue<Value: DatabaseValueConvertible>(_ index: Int, _ column: String) throws(IndexError) -> Value? {
        let stored = stored(index)
        if stored.isNull { return nil }
        guard let value = Value.fromDatabaseValue(stored) else { throw corrupt(column, stored) }
        return value
    }

    /// One of the words this version knows (a status, kind, theme, ...).
    func known<Value: RawRepresentable>(_ index: Int, _ column: String) throws(IndexError) -> Value where Value.RawValue == String {
        let stored = stored(index)
        guard let text = String.fromDatabaseValue(stored), let value = Value(rawValue: text) else { throw corrupt(column, stored) }
        return value
    }

    /// One of the words this version knows, or NULL.
    func optionalKnown<Value: RawRepresentable>(_ index: Int, _ column: String) throws(IndexError) -> Value? where Value.RawValue == String {
        let stored = stored(index)
        if stored.isNull { return nil }
        guard let text = String.fromDatabaseValue(stored), let value = Value(rawValue: text) else { throw corrupt(column, stored) }
        return value
    }

    func workoutID(_ index: Int, _ column: String) throws(IndexError) -> WorkoutID {
        let stored = stored(index)
        guard let text = String.fromDatabaseValue(stored), let id = WorkoutID(text) else { throw corrupt(column, stored) }
        return id
    }

    /// Seconds since 1970.
    func date(_ index: Int, _ column: String) throws(IndexError) -> Date {
        Date(timeIntervalSince1970: try value(index, column) as Double)
    }

    /// Seconds since 1970, or NULL.
    func optionalDate(_ index: Int, _ column: String) throws(IndexError) -> Date? {
        (try optionalValue(index, column) as Double?).map(Date.init(timeIntervalSince1970:))
    }

    /// A route's box from four columns from `index` on (``RouteBounds/columnNames``); `nil` when
    /// they are NULL (a route without a valid point, or a row from before the index kept boxes).
    func routeBounds(from index: Int) throws(IndexError) -> RouteBounds? {
        let values = try RouteBounds.columnNames.enumerated().map { (offset, column) throws(IndexError) in
            try optionalValue(index + offset, column) as Double?
        }
        return RouteBounds(stored: values[0], values[1], values[2], values[3])
    }

    /// What a picture's key is made of, from the columns of ``PictureInputs/selection`` from
    /// `index` on.
    func inputs(from index: Int) throws(IndexError) -> PictureInputs {
        let activity = index + 3 + RouteBounds.columnNames.count
        return PictureInputs(
            routeHash: try value(index, "route_hash"), heartRateHash: try value(index + 1, "hr_hash"), owner: try value(index + 2, "owner"),
            routeBounds: try routeBounds(from: index + 3), activity: try known(activity, "activity"), figures: try figures(from: activity + 1))
    }

    /// A share card's figures from the columns of ``WorkoutFigures/columnNames`` from `index` on.
    func figures(from index: Int) throws(IndexError) -> WorkoutFigures {
        WorkoutFigures(
            name: try optionalValue(index, "name"), start: try optionalDate(index + 1, "start_at"), end: try optionalDate(index + 2, "end_at"),
            timeZoneOffset: try optionalValue(index + 3, "tz_offset"), distance: try value(index + 4, "distance"),
            duration: try optionalValue(index + 5, "duration"),
            deviceFigures: (try optionalValue(index + 6, "device_figures") as String?).map { $0.split(separator: ",").map(String.init) },
            elevationGain: try optionalValue(index + 7, "elevation_gain"), heartRateAverage: try optionalValue(index + 8, "hr_avg"),
            place: try optionalValue(index + 9, "place"))
    }

    /// A picture from four columns from `index` on: workout id, kind, theme and scale (`job`'s
    /// `workout_id, kind, theme, scale`).
    func picture(from index: Int) throws(IndexError) -> PictureID {
        PictureID(
            workoutID: try workoutID(index, "workout_id"), kind: try known(index + 1, "kind"), theme: try known(index + 2, "theme"),
            scale: try value(index + 3, "scale"))
    }

    // MARK: Errors

    /// The error for `stored`, found in `column` of this row.
    func corrupt(_ column: String, _ stored: DatabaseValue) -> IndexError {
        .corruptRow(
            table: table, row: Self.describe(self.stored(idColumn), quoted: false), column: column, value: Self.describe(stored, quoted: true))
    }

    /// A stored value as a person reads it: `NULL`, a number, text (in quotes when `quoted`), or a blob's size.
    static func describe(_ value: DatabaseValue, quoted: Bool) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text):
            let shown = String(text.prefix(80)).escapedForDisplay
            return quoted ? "'\(shown)'" : shown
        case .blob(let bytes): return "a blob of \(bytes.count) bytes"
        }
    }
}

// MARK: The fast path over a raw statement

extension RowDecoder where Source == RawStatement.Columns {
    /// Decodes the current row of `statement`, a row of `table`; the column at `idColumn` names
    /// the row in errors. The `raw` variants read SQLite's own text and blob pointers, without a
    /// `DatabaseValue` or a `String` in between where none is needed.
    init(_ statement: RawStatement, table: String, idColumn: Int = 0) {
        self.init(statement.columns, table: table, idColumn: idColumn)
    }

    /// Text that must be there.
    func rawText(_ index: Int, _ column: String) throws(IndexError) -> String {
        guard !source.isNull(Int32(index)) else { throw corrupt(column, .null) }
        return source.text(Int32(index))
    }

    /// A blob that must be there (it may be empty).
    func rawBytes(_ index: Int, _ column: String) throws(IndexError) -> [UInt8] {
        guard !source.isNull(Int32(index)) else { throw corrupt(column, .null) }
        return source.bytes(Int32(index))
    }

    /// One of the words this version knows.
    func rawKnown<Value: RawRepresentable>(_ index: Int, _ column: String) throws(IndexError) -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: source.text(Int32(index))) else { throw corrupt(column, stored(index)) }
        return value
    }

    /// A workout id, parsed from the column's UTF-8 bytes.
    func rawWorkoutID(_ index: Int, _ column: String) throws(IndexError) -> WorkoutID {
        guard let id = source.withText(Int32(index), WorkoutID.init(utf8:)) else { throw corrupt(column, stored(index)) }
        return id
    }
}

/// Where ``RowDecoder`` reads a row's stored values: a GRDB row, or a raw statement's current row.
protocol StoredRow {
    func storedValue(_ index: Int) -> DatabaseValue
}

extension Row: StoredRow {
    func storedValue(_ index: Int) -> DatabaseValue { self[index] }
}

extension RawStatement.Columns: StoredRow {
    func storedValue(_ index: Int) -> DatabaseValue { databaseValue(Int32(index)) }
}
