import Foundation
import GRDB
public import WorkFeedModel

/// A stored column's value, as every backend holds it: what another backend's rows are given to
/// this module's decoders as (``IndexReader/workoutRecord(_:)``), so that each shape of row is
/// read, checked and named in errors in one place.
public enum StoredValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The value as SQLite stores it (a boolean as 0 or 1).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .bool(let flag): (flag ? 1 : 0).databaseValue
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}

/// A row of stored values (another backend's).
struct StoredValues: StoredRow {
    let values: [StoredValue]

    func storedValue(_ index: Int) -> DatabaseValue { index < values.count ? values[index].databaseValue : .null }
}

extension IndexReader {
    /// A workout from the values of ``workoutColumns``, in their order.
    public static func workoutRecord(_ values: [StoredValue]) throws(IndexError) -> WorkoutRecord {
        try workoutRecord(StoredValues(values: values))
    }

    /// What a picture's key is made of, from a workout's id and then the values of
    /// ``PictureInputs/columnNames`` in their order (a corrupt value is named by the workout's id).
    public static func pictureInputs(_ values: [StoredValue]) throws(IndexError) -> PictureInputs {
        try RowDecoder(StoredValues(values: values), table: "workout").inputs(from: 1)
    }

    /// A picture from the values of ``pictureColumns``, in their order.
    public static func pictureRecord(_ values: [StoredValue]) throws(IndexError) -> PictureRecord {
        try pictureRecord(StoredValues(values: values))
    }

    /// Settings from the values of ``settingsColumns``, in their order.
    public static func ownerSettings(_ values: [StoredValue]) throws(IndexError) -> OwnerSettings {
        try ownerSettings(StoredValues(values: values))
    }
}
