/// Rows under a header, each column as wide as its widest cell, numbers right-aligned: the tables
/// `workctl status` and `workctl workers` print, in kubectl's manner.
struct TextTable {
    enum Alignment { case left, right }

    let header: [String]
    let alignments: [Alignment]
    private(set) var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        header = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func append(_ cells: [String]) {
        rows.append(cells)
    }

    /// The lines: the header, then the rows, columns three spaces apart, no trailing spaces.
    var lines: [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            var line = ""
            for (column, width) in widths.enumerated() {
                let cell = row.indices.contains(column) ? row[column] : ""
                let gap = String(repeating: " ", count: max(0, width - cell.count))
                if column > 0 { line += "   " }
                line += alignments[column] == .right ? gap + cell : cell + gap
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
