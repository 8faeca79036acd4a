import Foundation
public import Composition

/// A JSON value whose objects keep their keys in the order they were built, so that the same
/// timeline always serializes to the same bytes (OpenTimelineIO's own writer puts
/// `OTIO_SCHEMA` first; so does slowpoke).
public indirect enum OrderedJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    /// A whole number, written without a fraction (`1`, not `1.0`).
    case integer(Int64)
    case string(String)
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    public static func == (a: OrderedJSON, b: OrderedJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y
        case let (.integer(x), .integer(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Pretty-printed with four-space indentation, as OpenTimelineIO writes `.otio` files,
    /// ending in a newline.
    public func serialized() -> String {
        var out = ""
        write(into: &out, indent: 0)
        out += "\n"
        return out
    }

    private func write(into out: inout String, indent: Int) {
        // Indentation is one of a few shared strings, not a new string per value: a 3000-clip
        // timeline has hundreds of thousands of values.
        let pad = OrderedJSON.spaces(indent + 4)
        let closing = OrderedJSON.spaces(indent)
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d): out += OrderedJSON.format(d)
        case .integer(let i): out += "\(i)"
        case .string(let s): OrderedJSON.quote(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                item.write(into: &out, indent: indent + 4)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (index, (key, value)) in members.enumerated() {
                out += pad
                OrderedJSON.quote(key, into: &out)
                out += ": "
                value.write(into: &out, indent: indent + 4)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        }
    }

    /// Runs of 0, 4, 8, … 256 spaces. Whole strings, not slices of one run: appending a
    /// `Substring` to a `String` counts its characters first (`underestimatedCount`), which took
    /// 40% of a 3000-clip export.
    private static let indentation = (0...64).map { String(repeating: " ", count: 4 * $0) }

    /// `count` spaces (nesting deeper than 64 levels gets its own string).
    private static func spaces(_ count: Int) -> String {
        count % 4 == 0 && count / 4 < indentation.count ? indentation[count / 4] : String(repeating: " ", count: count)
    }

    /// The shortest text that reads back as the same double (`24.0`, `0.25`, `0.3333333333333333`).
    static func format(_ d: Double) -> String {
        precondition(d.isFinite, "JSON has no infinities or NaN")
        return d == 0 ? "0.0" : d.description
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings need no escape: one append.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
