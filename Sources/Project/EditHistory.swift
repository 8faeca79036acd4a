import Foundation
public import Composition

/// The document's undo and redo history: every edit ever made, and how many of them are
/// applied. Undo lowers `applied`; a new edit drops the undone ones after it.
///
/// A history read from a document whose checksum matches keeps its entries as the document's
/// text (``HistoryText``) and decodes an entry only when it is asked for, so that `info`,
/// `undo` and a new edit on a history of 100,000 edits do not decode them all; saving writes
/// those entries back as they were. Entries recorded since come after them, decoded.
public struct EditHistory: Sendable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public let edit: Edit
        public let date: Date
    }

    /// The first entries, still as text (nil when the history was decoded whole or is new).
    private(set) var text: HistoryText?
    /// The entries after those of `text`.
    private(set) var recorded: [Entry] = []
    public private(set) var applied: Int = 0

    public init() {}

    /// A history whose entries are `text`'s, of which the first `applied` are applied.
    init(text: HistoryText, applied: Int) {
        precondition((0...text.count).contains(applied), "checked by HistoryText.read")
        self.text = text
        self.applied = applied
    }

    /// How many edits the history holds, applied or undone.
    public var count: Int { (text?.count ?? 0) + recorded.count }
    public var canUndo: Bool { applied > 0 }
    public var canRedo: Bool { applied < count }

    /// Every entry, decoded.
    public var entries: [Entry] {
        get throws(ProjectError) { try entries(prefix: count) }
    }

    /// The applied edits, decoded, in order.
    public var appliedEdits: [Edit] {
        get throws(ProjectError) { try entries(prefix: applied).map(\.edit) }
    }

    /// The applied edits recorded as one of `names` (`"ramp"`, `"slomo"`, as ``Edit/recordedName``),
    /// in order. Of the entries still as text, only those whose text can hold such an edit are
    /// decoded.
    public func appliedEdits(recordedAs names: Set<String>) throws(ProjectError) -> [Edit] {
        var edits: [Edit] = []
        let stored = min(applied, text?.count ?? 0)
        if let text, stored > 0 {
            for index in text.indices(below: stored, mayRecord: names) {
                let edit = try text.entry(index).edit
                if names.contains(edit.recordedName) { edits.append(edit) }
            }
        }
        edits += recorded[..<(applied - stored)].map(\.edit).filter { names.contains($0.recordedName) }
        return edits
    }

    /// Whether an entry, applied or undone, is an edit recorded as one of `names`; true too
    /// when one that may be cannot be decoded (a version must rather be too new than too old).
    public func mayHold(recordedAs names: Set<String>) -> Bool {
        if recorded.contains(where: { names.contains($0.edit.recordedName) }) { return true }
        guard let text else { return false }
        return text.indices(below: text.count, mayRecord: names).contains { index in
            (try? text.entry(index)).map { names.contains($0.edit.recordedName) } ?? true
        }
    }

    /// Entry `index` (from 0), decoded.
    public func entry(at index: Int) throws(ProjectError) -> Entry {
        precondition((0..<count).contains(index), "entry \(index) of a history of \(count)")
        if let text, index < text.count { return try text.entry(index) }
        return recorded[index - (text?.count ?? 0)]
    }

    private func entries(prefix length: Int) throws(ProjectError) -> [Entry] {
        let stored = min(length, text?.count ?? 0)
        return (try text?.entries(prefix: stored) ?? []) + recorded[..<(length - stored)]
    }

    mutating func record(_ edit: Edit, date: Date) {
        if let stored = text?.count, applied < stored {
            text?.truncate(to: applied)
            recorded = []
        } else {
            recorded.removeSubrange((applied - (text?.count ?? 0))...)
        }
        recorded.append(Entry(edit: edit, date: date))
        applied += 1
    }

    mutating func stepBack() throws(ProjectError) -> Edit {
        guard canUndo else { throw .nothingToUndo }
        let edit = try entry(at: applied - 1).edit
        applied -= 1
        return edit
    }

    mutating func stepForward() throws(ProjectError) -> Edit {
        guard canRedo else { throw .nothingToRedo }
        let edit = try entry(at: applied).edit
        applied += 1
        return edit
    }

    private enum CodingKeys: String, CodingKey { case entries, applied }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        recorded = try c.decode([Entry].self, forKey: .entries)
        applied = try c.decode(Int.self, forKey: .applied)
        guard (0...recorded.count).contains(applied) else {
            throw DecodingError.dataCorruptedError(forKey: .applied, in: c,
                debugDescription: "history says \(applied) edits are applied but holds \(recorded.count)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(applied, forKey: .applied)
        try c.encode(try entries, forKey: .entries)
    }
}

extension EditHistory: Hashable {
    /// Equal when the same edits, made at the same dates, are applied: whether an entry is still
    /// text or decoded does not matter.
    public static func == (a: EditHistory, b: EditHistory) -> Bool {
        guard a.applied == b.applied, a.count == b.count else { return false }
        guard let x = try? a.entries, let y = try? b.entries else { return a.text?.isSame(as: b.text) == true && a.recorded == b.recorded }
        return x == y
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(applied)
        hasher.combine(count)
    }
}
