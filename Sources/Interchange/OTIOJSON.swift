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
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// ``serialized()`` as UTF-8 bytes, written into a buffer of `capacity` bytes to begin with
    /// (a 3000-clip timeline is 16 MB: growing a string to that, appending one value at a time,
    /// took more than half of `otio export`).
    public func serializedBytes(capacity: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        write(into: &out, indent: 0)
        out.append(0x0A)
        return out
    }

    func write(into out: inout [UInt8], indent: Int) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .number(let d): out += OrderedJSON.format(d).utf8
        case .integer(let i): out += "\(i)".utf8
        case .string(let s): OrderedJSON.quote(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]".utf8; return }
            out += "[\n".utf8
            for (index, item) in items.enumerated() {
                OrderedJSON.pad(indent + 4, into: &out)
                item.write(into: &out, indent: indent + 4)
                out += (index == items.count - 1 ? "\n" : ",\n").utf8
            }
            OrderedJSON.pad(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { out += "{}".utf8; return }
            out += "{\n".utf8
            for (index, (key, value)) in members.enumerated() {
                OrderedJSON.pad(indent + 4, into: &out)
                OrderedJSON.quote(key, into: &out)
                out += ": ".utf8
                value.write(into: &out, indent: indent + 4)
                out += (index == members.count - 1 ? "\n" : ",\n").utf8
            }
            OrderedJSON.pad(indent, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `count` spaces.
    static func pad(_ count: Int, into out: inout [UInt8]) {
        // Slices of one row of spaces: appending `repeatElement` went a byte at a time.
        var left = count
        while left > 0 {
            let n = min(left, spaces.count)
            out.append(contentsOf: spaces[0 ..< n])
            left -= n
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// The shortest text that reads back as the same double (`24.0`, `0.25`, `0.3333333333333333`).
    static func format(_ d: Double) -> String {
        precondition(d.isFinite, "JSON has no infinities or NaN")
        return d == 0 ? "0.0" : d.description
    }

    static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: one append.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s.utf8
            out.append(UInt8(ascii: "\""))
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\"".utf8
            case "\\": out += "\\\\".utf8
            case "\n": out += "\\n".utf8
            case "\r": out += "\\r".utf8
            case "\t": out += "\\t".utf8
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value).utf8
                } else {
                    out += scalar.utf8
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
