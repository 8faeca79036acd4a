import Foundation

/// A place to run a command on hostile input and see everything it touched: a `work` folder
/// (the command's current folder, holding its inputs), a sibling `outside` folder (files a
/// hostile input may try to reach through `../` or absolute paths), and `home` and `tmp`
/// folders given to the command as `HOME` and `TMPDIR`, so that `~` and scratch files land
/// where they are seen too.
///
/// ``snapshot()`` records every file's size, modification time and content hash (64-bit
/// FNV-1a: it tells a changed file, not an attacker's collision) under the sandbox;
/// ``changes(since:)`` lists what was created, changed or removed.
public final class FuzzSandbox: Sendable {
    public let root: URL
    public var work: URL { root.appendingPathComponent("work") }
    public var outside: URL { root.appendingPathComponent("outside") }
    public var home: URL { root.appendingPathComponent("home") }
    public var tmp: URL { root.appendingPathComponent("tmp") }

    public init(_ label: String) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-fuzz-\(label)-\(UUID().uuidString)")
        for folder in [work, outside, home, tmp] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Empties `work`, `home` and `tmp` (not `outside`) for the next case.
    public func reset() throws {
        for folder in [work, home, tmp] {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// One file's state: what a write, a replacement or a truncation would change.
    public struct FileState: Hashable, Sendable {
        public let size: Int64
        public let modified: Date
        public let hash: UInt64
        /// The link's target, for a symbolic link (its own state, not its target's).
        public let link: String?
    }

    /// Every file under the sandbox, by path relative to its root.
    public func snapshot() throws -> [String: FileState] {
        var result: [String: FileState] = [:]
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: root.path) else { return result }
        while let relative = walker.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            let attributes = try manager.attributesOfItem(atPath: path)
            let type = attributes[.type] as? FileAttributeType
            if type == .typeDirectory { continue }
            let link = type == .typeSymbolicLink ? try? manager.destinationOfSymbolicLink(atPath: path) : nil
            var digest: UInt64 = 0
            if type == .typeRegular, let data = manager.contents(atPath: path) { digest = Self.fnv1a(data) }
            result[relative] = FileState(size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                                         modified: attributes[.modificationDate] as? Date ?? .distantPast,
                                         hash: digest, link: link)
        }
        return result
    }

    static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }

    /// What happened to the files between `before` and now.
    public struct Changes: Sendable, CustomStringConvertible {
        public var created: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        public init() {}
        public var all: [String] { created + changed + removed }
        public var description: String { "created \(created), changed \(changed), removed \(removed)" }
    }

    public func changes(since before: [String: FileState]) throws -> Changes {
        let after = try snapshot()
        var result = Changes()
        for (path, state) in after.sorted(by: { $0.key < $1.key }) {
            if let old = before[path] {
                if old != state { result.changed.append(path) }
            } else {
                result.created.append(path)
            }
        }
        result.removed = before.keys.filter { after[$0] == nil }.sorted()
        return result
    }
}
