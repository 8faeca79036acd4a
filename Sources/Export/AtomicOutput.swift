import Foundation

/// An output file that appears only when complete: everything is written to a hidden temporary
/// file in the same folder, which ``commit()`` renames into place. Until then, or if the work
/// fails, ``discard()`` (also run on deinit) removes the temporary file, so an error or an
/// interrupt never leaves a partial output behind.
public final class AtomicOutput: @unchecked Sendable {
    // @unchecked: the paths are immutable; `finished` is only touched by the owning pipeline
    // and by `discard()`, which a signal handler may call once the pipeline has stopped.
    public let destination: URL
    public let temporary: URL
    private var finished = false

    /// Every temporary file not yet committed or discarded, so an interrupt can remove them.
    nonisolated(unsafe) private static var live: Set<String> = []
    private static let lock = NSLock()

    /// Refuses to overwrite `input` or, unless `force`, an existing file; checks that the
    /// folder can be written.
    public init(destination: URL, input: URL? = nil, force: Bool) throws(ExportError) {
        let target = destination.standardizedFileURL
        if let input, target.resolvingSymlinksInPath().path == input.standardizedFileURL.resolvingSymlinksInPath().path {
            throw .refused("\(destination.path) is the input; choose another output name")
        }
        if FileManager.default.fileExists(atPath: target.path) && !force {
            throw .refused("\(destination.path) already exists; use --force to replace it")
        }
        let folder = target.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .cannotWrite(path: destination.path, reason: "the folder \(folder.path) does not exist")
        }
        guard access(folder.path, W_OK) == 0 else {
            throw .cannotWrite(path: destination.path, reason: "the folder \(folder.path) is not writable")
        }
        self.destination = target
        self.replaces = force
        self.temporary = folder.appendingPathComponent(".\(target.lastPathComponent).slowpoke-tmp-\(getpid())-\(UUID().uuidString.prefix(8))")
        AtomicOutput.lock.withLock { _ = AtomicOutput.live.insert(temporary.path) }
    }

    deinit { discard() }

    /// Whether the destination may be replaced (--force).
    private let replaces: Bool

    /// Renames the finished temporary file over the destination; without `force`, only if no
    /// file has appeared there meanwhile (another export to the same name that finished first):
    /// a hard link, which fails on an existing name, then the temporary name goes (a file system
    /// without hard links falls back to the rename).
    public func commit() throws(ExportError) {
        guard !finished else { return }
        if !replaces {
            if link(temporary.path, destination.path) == 0 {
                unlink(temporary.path)
                finished = true
                AtomicOutput.lock.withLock { _ = AtomicOutput.live.remove(temporary.path) }
                return
            }
            if errno == EEXIST {
                discard()
                throw .refused("\(destination.path) already exists: it appeared while this export ran (another export to the same name?); use --force to replace it")
            }
            // A file system without hard links (FAT, some network shares): rename as forced.
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw .cannotWrite(path: destination.path, reason: reason)
        }
        finished = true
        AtomicOutput.lock.withLock { _ = AtomicOutput.live.remove(temporary.path) }
    }

    /// Removes the temporary file, if it is still there.
    public func discard() {
        guard !finished else { return }
        finished = true
        unlink(temporary.path)
        AtomicOutput.lock.withLock { _ = AtomicOutput.live.remove(temporary.path) }
    }

    /// Removes every temporary file still in progress. For a signal handler on its way out;
    /// it takes no lock, so it cannot deadlock against an interrupted writer.
    public static func removeAllInProgress() {
        for path in live { unlink(path) }
    }
}
