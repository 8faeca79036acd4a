import Project

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
            let near = NearestName.nearest(to: key, in: known)
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath,
                debugDescription: "\(what) has no key \"\(key)\"\(near.map { " (did you mean \"\($0)\"?)" } ?? ""); its keys are \(known.joined(separator: ", "))"))
        }
    }
}
