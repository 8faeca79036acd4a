public import Foundation
import SafeFiles
public import Composition
import Crypto

/// What identifies a movie's content cheaply: its size, modification time and a SHA-256 of its
/// first and last MiB.
public struct Fingerprint: Sendable, Hashable, Codable {
    public let size: Int64
    public let modified: Date
    /// SHA-256 over the first MiB followed by the last MiB (the whole file when it is smaller).
    public let sha256HeadTail: String

    public static let sampleLength = 1 << 20

    public init(size: Int64, modified: Date, sha256HeadTail: String) {
        self.size = size
        self.modified = modified
        self.sha256HeadTail = sha256HeadTail
    }

    /// Reads the fingerprint of the file at `url`; for a symbolic link, of the file it points to.
    public init(of url: URL) throws(ProjectError) {
        if let kind = InputFile.irregularKind(url.path) {
            throw .io(path: url.path, reason: "it is \(kind), not a regular file")
        }
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            // Whole seconds: the document stores ISO 8601 times, which have no fractions.
            let modified = Date(timeIntervalSince1970: ((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0).rounded(.down))
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var hash = SHA256()
            let sample = Int64(Fingerprint.sampleLength)
            hash.update(data: try handle.read(upToCount: Int(min(size, sample))) ?? Data())
            try handle.seek(toOffset: UInt64(max(0, size - sample)))
            hash.update(data: try handle.read(upToCount: Int(min(size, sample))) ?? Data())
            self.init(size: size, modified: modified, sha256HeadTail: hash.finalize().hex)
        } catch {
            throw .io(path: url.path, reason: "cannot read it to check that it is unchanged: \(error.localizedDescription)")
        }
    }

    /// Why `current` is not the content this fingerprint was taken of, or nil if it is. A new
    /// modification time alone (a copy, a `touch`) is not a change: the content decides.
    public func change(to current: Fingerprint) -> String? {
        if current.size != size { return "its size was \(size) bytes and is now \(current.size)" }
        if current.sha256HeadTail != sha256HeadTail { return "its content is different" }
        return nil
    }
}
