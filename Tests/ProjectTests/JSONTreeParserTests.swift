import Foundation
@testable import Interchange
import Testing
import TestSupport

/// `JSONTreeParser` against Foundation's `JSONSerialization` (the oracle it replaces for
/// OpenTimelineIO files): the same tree for seeded random documents, the same refusals for
/// broken ones, and bounded work for hostile ones.
@Suite struct JSONTreeParserTests {
    /// A random JSON text: nested objects and arrays, escapes, non-ASCII text, integers and
    /// fractions of every size.
    static func randomJSON(_ g: inout SplitMix64, depth: Int = 0) -> String {
        let pick = depth == 0 ? Int.random(in: 0...1, using: &g) : Int.random(in: 0...(depth > 4 ? 6 : 8), using: &g)
        switch pick {
        case 0, 7:
            let members = (0..<Int.random(in: 0...5, using: &g)).map { _ in "\(randomString(&g)): \(randomJSON(&g, depth: depth + 1))" }
            return "{" + members.joined(separator: Bool.random(using: &g) ? "," : " ,\n ") + "}"
        case 1, 8:
            return "[" + (0..<Int.random(in: 0...5, using: &g)).map { _ in randomJSON(&g, depth: depth + 1) }.joined(separator: ", ") + "]"
        case 2: return randomString(&g)
        case 3: return String(Int64.random(in: Int64.min...Int64.max, using: &g) >> Int64.random(in: 0...63, using: &g))
        case 4: return ["0.5", "-1.25e3", "3E-7", "1e300", "24.0", "-0", "0.1", "123456789012345678901234567890"].randomElement(using: &g)!
        case 5: return ["true", "false", "null"].randomElement(using: &g)!
        default: return "\(Double.random(in: -1e6...1e6, using: &g))"
        }
    }

    static func randomString(_ g: inout SplitMix64) -> String {
        let pieces = ["a", "OTIO_SCHEMA", "é", "日本", "🎬", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83c\\udfac", "\\t", " ", "x/y"]
        return "\"" + (0..<Int.random(in: 0...6, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined() + "\""
    }

    /// Whether two trees hold the same values (numbers compared as doubles, as OTIO reads them).
    static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        case let (x as [Any], y as [Any]): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (x as String, y as String): return x == y
        case (is NSNull, is NSNull): return true
        // JSONSerialization reads integers beyond 64 bits as decimals, whose doubles may differ
        // in the last place.
        case let (x as NSNumber, y as NSNumber): return abs(x.doubleValue - y.doubleValue) <= 1e-15 * abs(y.doubleValue)
        default: return false
        }
    }

    @Test func randomDocumentsParseAsJSONSerializationParsesThem() throws {
        let seed = ProcessInfo.processInfo.environment["SLOWPOKE_SEED"].flatMap(UInt64.init) ?? 2611
        var g = SplitMix64(state: seed)
        var compared = 0
        for _ in 0..<400 {
            let text = Self.randomJSON(&g)
            let data = Data(text.utf8)
            let expected = try JSONSerialization.jsonObject(with: data)
            let parsed = try JSONTreeParser.parse(data)
            #expect(Self.same(parsed, expected), "seed \(seed) (SLOWPOKE_SEED=\(seed)): \(text)")
            compared += 1
        }
        #expect(compared == 400)
    }

    @Test func valuesKeepTheirTypes() throws {
        let tree = try #require(try JSONTreeParser.parse(Data(#"{"i": 24, "d": 23.976, "b": true, "n": null, "s": "\u00e9\ud83c\udfac", "a": [1, "x"]}"#.utf8)) as? [String: Any])
        #expect((tree["i"] as? NSNumber)?.int64Value == 24)
        #expect((tree["d"] as? NSNumber)?.doubleValue == 23.976)
        #expect(tree["b"] as? Bool == true)
        #expect(tree["n"] is NSNull)
        #expect(tree["s"] as? String == "é🎬")
        #expect((tree["a"] as? [Any])?.count == 2)
    }

    @Test(arguments: [
        "", "   ", "42", "\"text\"", "{", "[1, 2", "{\"a\" 1}", "[01]", "[1.]", "[1e]", "[-]", "[+1]", "[,]", "{,}", "[1,,]",
        "[tru]", "[nul]", "{a: 1}", "[\"\\x\"]", "[\"\\ud83c\"]", "[\"\\udfac\"]", "[\"tab\there\"]", "[1] [2]", "[1e999]", "{\"a\": 1} x",
    ])
    func brokenTextIsRefusedLikeJSONSerializationRefusesIt(text: String) {
        let data = Data(text.utf8)
        #expect(throws: (any Error).self, "JSONSerialization refuses \(text) too") { try JSONSerialization.jsonObject(with: data) }
        #expect(throws: JSONTreeParser.Failure.self, "\(text)") { try JSONTreeParser.parse(data) }
    }

    /// A comma may end the items, as JSONSerialization allows.
    @Test func aTrailingCommaIsAllowed() throws {
        let tree = try #require(try JSONTreeParser.parse(Data(#"{"a": [1, 2,], "b": {"c": 1,},}"#.utf8)) as? [String: Any])
        #expect((tree["a"] as? [Any])?.count == 2 && (tree["b"] as? [String: Any])?.count == 1)
    }

    /// Objects of the same text are made once and shared; different ones stay apart.
    @Test func repeatedObjectsAreTheSameValues() throws {
        let tree = try #require(try JSONTreeParser.parse(Data(#"[{"a": {"b": [1, 2]}}, {"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}]"#.utf8)) as? [[String: [String: [Int]]]])
        #expect(tree.map { $0["a"]?["b"] ?? [] } == [[1, 2], [1, 2], [1, 3]])
    }

    @Test func invalidUTF8IsRefused() {
        let data = Data([UInt8]("[\"a".utf8) + [0xFF, 0xFE] + [UInt8]("\"]".utf8))
        #expect(throws: JSONTreeParser.Failure.self) { try JSONTreeParser.parse(data) }
    }

    /// A million opening brackets: refused at the depth limit, without recursing a million deep.
    @Test func deepNestingIsRefusedNotFollowed() {
        let data = Data(repeating: UInt8(ascii: "["), count: 1_000_000)
        do {
            _ = try JSONTreeParser.parse(data)
            Issue.record("a million brackets parsed")
        } catch {
            #expect(error.description.contains("nest more than \(JSONTreeParser.maximumDepth) deep"), "\(error)")
        }
        let fine = String(repeating: "[", count: JSONTreeParser.maximumDepth) + String(repeating: "]", count: JSONTreeParser.maximumDepth)
        #expect((try? JSONTreeParser.parse(Data(fine.utf8))) != nil)
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let data = Data([0xEF, 0xBB, 0xBF] + [UInt8]("{\"a\": [1]}".utf8))
        #expect((try JSONTreeParser.parse(data) as? [String: Any])?["a"] != nil)
    }
}
