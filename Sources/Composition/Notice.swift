/// A library's sentence for a person, an error's or a warning's: the facts, and the remedies
/// (other options that would do what was asked) that only a front end can put into words.
///
/// A notice without remedies is written as a string: `throw .unsupported("no video track")`.
/// ```swift
/// Notice("the timeline has gaps; passthrough cannot make new frames",
///        remedies: [Remedy(.constantRate, "for black")])
/// // command line: "… new frames (export with --fps for black)"
/// // batch:        "… new frames (set \"fps\" in the export for black)"
/// ```
public struct Notice: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// What is so, with no advice about options.
    public var fact: String
    /// A remark on the facts, said in brackets after them, where the remedies join it:
    /// "… (frame-exact cuts re-encode …; export with --fps to cut exactly)".
    public var aside: String?
    /// What would work instead, best first.
    public var remedies: [Remedy]

    public init(_ fact: String, aside: String? = nil, remedies: [Remedy] = []) {
        self.fact = fact
        self.aside = aside
        self.remedies = remedies
    }

    public init(stringLiteral value: String) { self.init(value) }
    public init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    /// The facts alone.
    public var description: String { text { _ in nil } }

    /// The facts, then in brackets the aside and the remedies a front end words (`say` returns
    /// nil for one it has no words for): "… cannot repeat frames (export with --fps)".
    public func text(_ say: (Remedy) -> String?) -> String {
        let said = remedies.compactMap(say)
        let inside = (aside.map { [$0] } ?? []) + (said.isEmpty ? [] : [said.joined(separator: ", or ")])
        return inside.isEmpty ? fact : "\(fact) (\(inside.joined(separator: "; ")))"
    }
}
