/// The known name nearest to a misspelt one (`algoritm` → `algorithm`, `exprt` → `export`,
/// `--rnage` → `--range`), by edit distance: what recipes and the command line suggest.
public enum NearestName {
    /// The name in `known` nearest to `name`, when at most `limit` edits away.
    public static func nearest(to name: String, in known: [String], limit: Int = 2) -> String? {
        known.map { ($0, distance($0, name)) }.min { $0.1 < $1.1 }.flatMap { $0.1 <= limit ? $0.0 : nil }
    }

    /// The edit distance between `a` and `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = above
            }
        }
        return row[b.count]
    }
}
