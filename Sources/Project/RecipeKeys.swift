/// The keys a recipe object may hold: a misspelt key (`"algoritm"`, `"edit"`) must stop the
/// batch, not be skipped, or the movies come out quietly unedited.
enum RecipeKeys {
    /// Any key, to list everything an object holds.
    private struct AnyKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Throws when the object `decoder` reads (at `nested`, when given) has a key outside
    /// `known`, naming it, where it is, what is allowed, and the nearest allowed one.
    static func check(_ decoder: any Decoder, nested: String? = nil, known: [String], in what: String) throws {
        var container = try decoder.container(keyedBy: AnyKey.self)
        if let nested { container = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(stringValue: nested)) }
        for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
            let near = known.min { distance($0, key) < distance($1, key) }.flatMap { distance($0, key) <= 2 ? $0 : nil }
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath,
                debugDescription: "\(what) has no key \"\(key)\"\(near.map { " (did you mean \"\($0)\"?)" } ?? ""); its keys are \(known.joined(separator: ", "))"))
        }
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
