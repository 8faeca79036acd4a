import Foundation
public import Composition

/// The document's undo and redo history: every edit ever made, and how many of them are
/// applied. Undo lowers `applied`; a new edit drops the undone ones after it.
public struct EditHistory: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public let edit: Edit
        public let date: Date
    }

    public private(set) var entries: [Entry] = []
    public private(set) var applied: Int = 0

    public init() {}

    public var canUndo: Bool { applied > 0 }
    public var canRedo: Bool { applied < entries.count }
    public var appliedEdits: [Edit] { entries[..<applied].map(\.edit) }

    mutating func record(_ edit: Edit, date: Date) {
        entries.removeSubrange(applied...)
        entries.append(Entry(edit: edit, date: date))
        applied += 1
    }

    mutating func stepBack() throws(ProjectError) -> Edit {
        guard canUndo else { throw .nothingToUndo }
        applied -= 1
        return entries[applied].edit
    }

    mutating func stepForward() throws(ProjectError) -> Edit {
        guard canRedo else { throw .nothingToRedo }
        applied += 1
        return entries[applied - 1].edit
    }

    private enum CodingKeys: String, CodingKey { case entries, applied }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entries = try c.decode([Entry].self, forKey: .entries)
        applied = try c.decode(Int.self, forKey: .applied)
        guard (0...entries.count).contains(applied) else {
            throw DecodingError.dataCorruptedError(forKey: .applied, in: c,
                debugDescription: "history says \(applied) edits are applied but holds \(entries.count)")
        }
    }
}
