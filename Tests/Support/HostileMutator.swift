import Foundation

/// Seeded mutations of input files, as a careless tool or an attacker would make them:
/// truncations, bit flips, extreme numbers, values of the wrong JSON type, and path tricks.
/// The same seed gives the same mutations on every machine, so a failing case can be replayed.
public struct HostileMutator {
    public var rng: SplitMix64
    /// The seed this mutator started from: the case's name in a failure's message.
    public let seed: UInt64
    /// Absolute paths the path tricks may name (the sandbox's `outside` folder and its files),
    /// so that nothing outside the sandbox is ever named.
    public let outsidePaths: [String]

    public init(seed: UInt64, outsidePaths: [String]) {
        rng = SplitMix64(state: seed)
        self.seed = seed
        self.outsidePaths = outsidePaths
    }

    public mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(max(1, n))) }
    public mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    /// Numbers at the edges of every integer and float type a reader may convert to.
    public static let extremeNumbers: [String] = [
        "0", "-1", "1", "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        "1e308", "-1e308", "1e999", "4.9e-324", "-0", "0.5", "1e20", "123456789012345678901234567890",
    ]

    /// Strings a field holding a number, a time, a rate or a range may be given.
    public static let extremeStrings: [String] = [
        "", "0", "-1", "NaN", "nan", "inf", "-inf", "+inf", "indefinite", "invalid", "1e308", "4/2/2",
        "1/0", "0/0", "-0", "2147483648", "9223372036854775807", "9223372036854775808",
        "1/2147483648", "2147483647/1", "9223372036854775807/2147483647", "0.000000000000000001",
        "999999999999999999", "1/3-", "-1-5", "0-end", "end", "0-50%", "50%-", "300%", "00:99:00",
        "1:2:3:4", "0x10", "1_000", "١٢", "3.2.1", "1/-2", "+", ".", "/", "%",
    ]

    /// Names that try to leave the folder, hide in it, or mislead a terminal.
    public mutating func pathTrick() -> String {
        pick([
            "../outside/precious.mp4", "../outside", "../../../../../../tmp/x", "../", "..", ".", "/",
            pick(outsidePaths), pick(outsidePaths) + "/../precious.mp4", "~", "~/x.mp4", "~root/x",
            "a\nb.mp4", "\u{1b}[31mred\u{1b}[0m.mp4", "tab\there.mp4", "nul\u{0}byte.mp4",
            String(repeating: "n", count: 300) + ".mp4", String(repeating: "d/", count: 200) + "x.mp4",
            "clip.mp4/", "./clip.mp4", "clip.mp4/../clip.mp4", "file:///etc/passwd", "*.mp4", "-rf",
            "sub/../../outside/precious.mp4", "\u{202e}4pm.exe",
        ])
    }

    // MARK: Bytes

    public mutating func truncate(_ data: Data) -> Data {
        data.prefix(below(data.count + 1))
    }

    public mutating func flipBits(_ data: Data, count: Int, within limit: Int? = nil) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return data }
        let span = min(bytes.count, limit ?? bytes.count)
        for _ in 0..<count { bytes[below(span)] ^= UInt8(1) << UInt8(below(8)) }
        return Data(bytes)
    }

    // MARK: JSON

    /// A path into a JSON tree: keys and indexes.
    enum Step { case key(String), index(Int) }

    /// Every node's path, the root first.
    func paths(in value: Any, at prefix: [Step] = []) -> [[Step]] {
        var result = [prefix]
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() { result += paths(in: object[key]!, at: prefix + [.key(key)]) }
        } else if let array = value as? [Any] {
            for (i, element) in array.enumerated() { result += paths(in: element, at: prefix + [.index(i)]) }
        }
        return result
    }

    func value(at path: [Step], in root: Any) -> Any? {
        var node: Any = root
        for step in path {
            switch step {
            case .key(let k): guard let next = (node as? [String: Any])?[k] else { return nil }; node = next
            case .index(let i): guard let a = node as? [Any], i < a.count else { return nil }; node = a[i]
            }
        }
        return node
    }

    /// `root` with the node at `path` replaced (nil removes it).
    func replacing(_ path: ArraySlice<Step>, in root: Any, with new: Any?) -> Any? {
        guard let step = path.first else { return new }
        switch step {
        case .key(let k):
            guard var object = root as? [String: Any], let child = object[k] else { return root }
            object[k] = replacing(path.dropFirst(), in: child, with: new)
            return object
        case .index(let i):
            guard var array = root as? [Any], i < array.count else { return root }
            if let replaced = replacing(path.dropFirst(), in: array[i], with: new) { array[i] = replaced } else { array.remove(at: i) }
            return array
        }
    }

    /// Raw JSON tokens to put where a placeholder string stands after serialising (numbers
    /// JSONSerialization cannot write).
    private var raw: [String] = []

    /// A value for a node: an extreme number or string, a path trick, or a value of another type.
    mutating func hostileValue(for old: Any, key: String?) -> Any? {
        let pathLike = key.map { ["path", "url", "target_url", "output_dir", "container", "name", "movies", "movie"].contains($0) } ?? false
        switch below(10) {
        case 0, 1:
            raw.append(pick(Self.extremeNumbers))
            return "@@RAW\(raw.count - 1)@@"
        case 2, 3: return pick(Self.extremeStrings)
        case 4: return pathLike || below(3) == 0 ? pathTrick() : pick(Self.extremeStrings)
        case 5: return pick([NSNull(), true, false, [Any](), [String: Any](), "x", 7] as [Any])
        case 6: return nil
        case 7:
            // The same value, twice as deep or repeated.
            if let array = old as? [Any], !array.isEmpty { return array + array }
            return [old]
        case 8:
            if let s = old as? String { return s + pick(["/2", "x", " ", "\n", "-", "e5", "0000000000"]) }
            raw.append(pick(Self.extremeNumbers))
            return "@@RAW\(raw.count - 1)@@"
        default:
            if let n = old as? NSNumber { raw.append("\(n.int64Value &* 1_000_003)"); return "@@RAW\(raw.count - 1)@@" }
            return pathTrick()
        }
    }

    /// `json` mutated one to three times at random nodes, or, one time in five, its bytes
    /// truncated or flipped instead. Three times in ten, only numbers are replaced, each by an
    /// extreme one: few of a document's nodes are numbers, and those are where traps hide.
    public mutating func mutateJSON(_ json: Data) -> Data {
        let mode = below(10)
        switch mode {
        case 0: return truncate(json)
        case 1: return flipBits(json, count: 1 + below(4))
        default: break
        }
        guard var root = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else { return flipBits(json, count: 2) }
        raw = []
        for _ in 0..<(1 + below(3)) {
            let all = paths(in: root)
            let numbers = all.filter { value(at: $0, in: root) is NSNumber }
            let leaves = all.filter { let v = value(at: $0, in: root); return !(v is [Any]) && !(v is [String: Any]) }
            let path = pick(mode < 5 && !numbers.isEmpty ? numbers : below(10) < 7 && !leaves.isEmpty ? leaves : all)
            guard let old = value(at: path, in: root) else { continue }
            var key: String?
            if case .key(let k)? = path.last { key = k }
            if path.isEmpty { root = [root]; continue }
            var new = hostileValue(for: old, key: key)
            if mode < 5 {
                raw.append(pick(Self.extremeNumbers))
                new = "@@RAW\(raw.count - 1)@@"
            }
            root = replacing(path[...], in: root, with: new) ?? root
        }
        guard var text = (try? JSONSerialization.data(withJSONObject: root, options: [.fragmentsAllowed, .sortedKeys]))
            .map({ String(decoding: $0, as: UTF8.self) }) else { return json }
        for (i, token) in raw.enumerated() { text = text.replacingOccurrences(of: "\"@@RAW\(i)@@\"", with: token) }
        return Data(text.utf8)
    }

    // MARK: Text lines (EDL)

    /// `text` with one to three of its fields replaced by extreme values or path tricks, lines
    /// duplicated, removed or truncated.
    public mutating func mutateLines(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        for _ in 0..<(1 + below(3)) {
            guard !lines.isEmpty else { break }
            let i = below(lines.count)
            var fields = lines[i].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            switch below(6) {
            case 0: lines.insert(lines[i], at: i)
            case 1: lines.remove(at: i)
            case 2: lines[i] = String(lines[i].prefix(below(lines[i].count + 1)))
            case 3 where !fields.isEmpty:
                fields[below(fields.count)] = pick(["99:99:99:99", "00:00:00:99", "-1", "999999999999", "NaN", "1e308",
                                                   "23:59:59:29", "00:00:00:00", "0.0", "-32.0", "99999.0"])
                lines[i] = fields.joined(separator: " ")
            case 4: lines[i] += " " + pathTrick()
            default: lines.insert("M2   \(pick(["AX", "001", "X"]))   \(pick(Self.extremeNumbers)) 00:00:01:00", at: i)
            }
        }
        return lines.joined(separator: "\n")
    }
}
