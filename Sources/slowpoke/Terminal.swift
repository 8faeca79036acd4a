import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Preview
import SafeFiles
import TimePitch

/// Where output goes: results to stdout, messages to stderr.
enum Terminal {
    /// Whether stderr speaks JSON (`--progress json`): one object per line.
    nonisolated(unsafe) static var json = false

    static func error(_ message: String) {
        FileHandle.standardError.write(Data(errorLine(message).utf8))
    }

    static func note(_ message: String) {
        let line = json ? jsonLine(["event": "note", "message": message]) : "slowpoke: \(printable(message, keepingNewlines: true))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// An error as stderr shows it: `slowpoke: error: …`, or a JSON `error` event.
    static func errorLine(_ message: String) -> String {
        json ? jsonLine(["event": "error", "message": message]) : "slowpoke: error: \(printable(message, keepingNewlines: true))\n"
    }

    /// What stderr shows if the process must end without unwinding (a second interrupt, or an
    /// interrupted command that did not end within a second): said now, written by the signal
    /// handler then.
    static func interruptMessage(_ message: String) {
        Signals.setInterruptMessage(errorLine(message))
    }

    static func jsonLine(_ fields: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `text` with control characters (C0 but tab, DEL, C1) shown as `\u{1B}`: a file name from
    /// someone else cannot move the cursor, retitle the terminal or hide the rest of a line.
    /// (A message of several lines, a usage text, keeps its line breaks with `keepingNewlines`.)
    static func printable(_ text: String, keepingNewlines: Bool = false) -> String {
        let escaped = { (scalar: Unicode.Scalar) in isControl(scalar) && !(keepingNewlines && scalar == "\n") }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if escaped(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
