/// Near misses of a word among the words a program knows (its commands, its configuration keys):
/// what "did you mean" suggestions are made from, in one place for every program.
public enum Spelling {
    /// Levenshtein distance, with a swap of two neighbouring letters counted as one edit.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// The known words nearest to `word` (case ignored), nearest first, at most `limit`: those
    /// within a third of their length in edits (at least 2), and, for dotted keys
    /// (`heartbeat.interval_ms`), those whose last part is the word's last part (a key put in the
    /// wrong section) or whose parts are the word's in another order.
    public static func nearest(_ word: String, among known: some Sequence<String>, limit: Int = 3) -> [String] {
        let lowered = word.lowercased()
        let lastPart = lowered.split(separator: ".").last.map(String.init) ?? lowered
        var scored: [(word: String, distance: Int)] = []
        for candidate in known {
            let full = distance(lowered, candidate.lowercased())
            let candidateLast = candidate.lowercased().split(separator: ".").last.map(String.init) ?? candidate
            let sameLastPart = lowered.contains(".") && candidateLast == lastPart
            // `listen.metrics` for `metrics.listen`: the same parts in another order.
            let sameParts = lowered.contains(".") && lowered.split(separator: ".").sorted() == candidate.lowercased().split(separator: ".").sorted()
            if full <= max(2, candidate.count / 3) || sameLastPart || sameParts {
                scored.append((candidate, sameLastPart || sameParts ? min(full, 1) : full))
            }
        }
        return scored.sorted { ($0.distance, $0.word) < ($1.distance, $1.word) }.prefix(limit).map(\.word)
    }
}
