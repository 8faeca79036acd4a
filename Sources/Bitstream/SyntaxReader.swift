/// Reads a syntax structure's elements by name, each with its legal range (ITU-T H.265 7.3,
/// 7.4): a value out of range, or data that ends inside an element, is a ``SyntaxError`` naming
/// the element, never a trap. Every element read is recorded with where its bits lie, so a
/// structure can be compared field by field and an element found again for rewriting.
struct SyntaxReader {
    /// One element as read: its name, value, bits in the RBSP and how it is coded.
    struct Element: Equatable {
        /// The descriptor (ITU-T H.264 and H.265 7.2): `u(n)` (a flag is `u(1)`), `ue(v)`,
        /// `se(v)`, or bits skipped as they are.
        enum Coding: Equatable {
            case u(Int)
            case ue
            case se
            case skipped
        }

        let name: String
        let value: Int
        let bits: Range<Int>
        let coding: Coding
    }

    private var reader: ExpGolombReader
    /// The elements read so far, in order.
    private(set) var elements: [Element] = []

    init(_ rbsp: [UInt8]) { reader = ExpGolombReader(rbsp) }

    /// Bits read so far.
    var position: Int { reader.position }

    /// `u(width)`, at most 32 bits, in `range` when given.
    mutating func u(_ name: String, _ width: Int, in range: ClosedRange<Int>? = nil) throws -> Int {
        try read(name, in: range, .u(width)) { try $0.bits(width) }
    }

    /// A one-bit flag.
    mutating func flag(_ name: String) throws -> Bool {
        try read(name, in: nil, .u(1)) { try $0.bits(1) } == 1
    }

    /// `ue(v)` in `range`.
    mutating func ue(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        try read(name, in: range, .ue) { try $0.ue() }
    }

    /// `se(v)` in `range`.
    mutating func se(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        try read(name, in: range, .se) { try $0.se() }
    }

    /// Skips `count` bits as one element (reserved bits, a structure not needed).
    mutating func skip(_ name: String, bits count: Int) throws {
        let start = reader.position
        guard count <= reader.remaining else { throw SyntaxError(element: name, problem: .ends) }
        while reader.position - start < count { _ = try reader.bits(min(32, count - (reader.position - start))) }
        elements.append(Element(name: name, value: 0, bits: start..<reader.position, coding: .skipped))
    }

    private mutating func read(_ name: String, in range: ClosedRange<Int>?, _ coding: Element.Coding,
                               _ body: (inout ExpGolombReader) throws -> Int) throws -> Int {
        let start = reader.position
        let value: Int
        do { value = try body(&reader) } catch { throw SyntaxError(element: name, problem: .ends) }
        if let range, !range.contains(value) { throw SyntaxError(element: name, problem: .outOfRange(value, range)) }
        elements.append(Element(name: name, value: value, bits: start..<reader.position, coding: coding))
        return value
    }

    /// The last element read named `name`.
    func element(_ name: String) -> Element? { elements.last { $0.name == name } }
}

/// A syntax element that cannot be read: the data ends inside it, or its value is out of the
/// range the standard allows (or this reader follows).
public struct SyntaxError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Problem: Equatable, Sendable {
        case ends
        case outOfRange(Int, ClosedRange<Int>)
        /// A value the reader does not follow (an extension, a profile), said in words.
        case unsupported(String)
    }

    public let element: String
    public let problem: Problem

    public var description: String {
        switch problem {
        case .ends: "the data ends inside \(element)"
        case .outOfRange(let value, let range): "\(element) is \(value), outside \(range.lowerBound)...\(range.upperBound)"
        case .unsupported(let why): "\(element) \(why)"
        }
    }
}
