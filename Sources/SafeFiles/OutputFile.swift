public import Foundation
internal import SignalSafety

/// The one way slowpoke writes a file: exports, documents, OTIO, audio files and batch records
/// all go through it, so the rules that make a write safe are written once.
///
/// - The target is refused when it is the same file (device and inode, links followed) as any
///   of the command's `inputs`, when it exists and `replacing` is false, when it is a folder, a
///   FIFO or a device, and when it is a symbolic link, unless `throughLink` (the document
///   being edited): then the link's final target is written, and the link stays.
/// - The content goes to a new temporary file beside the target, opened with
///   `O_CREAT|O_EXCL|O_NOFOLLOW` under an unpredictable name (a planted link or file there makes
///   the open fail instead of redirecting it), registered for removal by a signal handler.
/// - ``commit()`` gives it the mode (and, where it may, the owner) of the file it replaces, or
///   the umask's mode for a new one, syncs it and renames it into place (without `replacing`,
///   a hard link claims the name, so a file that appeared meanwhile is not replaced), then
///   syncs the folder. Until then, or on failure, ``discard()`` (also on deinit) removes it.
public final class OutputFile: @unchecked Sendable {
    // @unchecked: the paths and the descriptor are immutable; `finished` is touched by the one
    // pipeline that owns the output (commit, discard) and by deinit.
    /// The file that appears on commit (a followed link's target, when writing through one).
    public let destination: URL
    public let temporary: URL
    /// The temporary file, open for writing.
    public let descriptor: Int32
    private let replacing: Bool
    /// The file being replaced, as it was when the output was claimed.
    private let replaced: stat?
    private let slot: Int32
    private var finished = false

    /// Claims `destination`: checks the rules above and creates the temporary file. Messages
    /// name it `display` (as the user typed it), else by its path.
    public init(_ destination: URL, replacing: Bool, inputs: [URL] = [], throughLink: Bool = false,
                display: String? = nil) throws(SafeFileError) {
        var target = destination.standardizedFileURL
        let shown = display ?? destination.path
        switch PathKind(path: target.path) {
        case .symbolicLink:
            let pointsTo = (try? FileManager.default.destinationOfSymbolicLink(atPath: target.path)) ?? "?"
            guard throughLink, let resolved = Self.realPath(target.path) else {
                throw .symbolicLink(path: shown, to: pointsTo)
            }
            target = URL(fileURLWithPath: resolved)
            guard PathKind(path: target.path) == .regularFile else { throw .notRegularFile(path: shown) }
        case .folder, .other: throw .notRegularFile(path: shown)
        case .regularFile, .missing: break
        }
        if let identity = FileIdentity(path: target.path) {
            for input in inputs where FileIdentity(path: input.path) == identity {
                throw .isInput(path: shown, input: input.lastPathComponent == destination.lastPathComponent ? shown : input.path)
            }
            guard replacing else { throw .exists(path: shown) }
        }
        let folder = target.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .folderMissing(path: shown, folder: folder.path)
        }
        var existing = stat()
        replaced = lstat(target.path, &existing) == 0 ? existing : nil
        // What a killed process left while writing this very name goes first.
        let prefix = StaleFiles.temporaryPrefix(of: target)
        StaleFiles.remove(in: folder, prefix: prefix)
        var random = SystemRandomNumberGenerator()
        let tag = String(random.next() as UInt64, radix: 36)
        let temporary = folder.appendingPathComponent("\(prefix)\(getpid())-\(tag)")
        // Registered before it exists, so that no signal can come between the file and its
        // registration (unlinking a name not yet made is harmless: it is random).
        let slot = sp_temporary_register(temporary.path)
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            sp_temporary_unregister(slot)
            throw .cannotWrite(path: shown, reason: reason)
        }
        self.destination = target
        self.temporary = temporary
        self.descriptor = fd
        self.replacing = replacing
        self.slot = slot
    }

    deinit { discard() }

    /// A path that opens the temporary file itself, for a library that opens by name (libav's
    /// muxers): `/proc/self/fd/N` reaches the file this object created even if its name is
    /// replaced meanwhile; without `/proc`, the temporary name.
    public var openablePath: String {
        let proc = "/proc/self/fd/\(descriptor)"
        return access(proc, F_OK) == 0 ? proc : temporary.path
    }

    /// Appends `data` to the temporary file.
    public func write(_ data: Data) throws(SafeFileError) {
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure != 0 { throw .cannotWrite(path: destination.path, reason: String(cString: strerror(failure))) }
    }

    /// Puts the finished file in place (see the type's rules); on failure the temporary file goes.
    public func commit() throws(SafeFileError) {
        guard !finished else { return }
        do throws(SafeFileError) {
            try settle()
            if !replacing {
                if link(temporary.path, destination.path) == 0 {
                    unlink(temporary.path)
                    return finish()
                }
                if errno == EEXIST { throw .appeared(path: destination.path) }
                // A file system without hard links (FAT, some network shares): rename as replacing.
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw .cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
            }
            finish()
        } catch {
            discard()
            throw error
        }
    }

    /// Puts the finished file in place under the first of `names` (files beside the target,
    /// such as `clip-slowpoke.FAILED-VERIFY.mp4`) that does not exist, never replacing one, and
    /// returns it: for an output kept though it failed a check. Mode and sync as ``commit()``.
    public func commit(asideAs names: [URL]) throws(SafeFileError) -> URL {
        guard !finished else { throw .cannotWrite(path: destination.path, reason: "it was already put in place") }
        do throws(SafeFileError) {
            try settle()
            for name in names {
                if link(temporary.path, name.path) == 0 {
                    unlink(temporary.path)
                    finish()
                    return name
                }
                if errno == EEXIST { continue }
                // A file system without hard links: rename, where no file has the name yet.
                guard PathKind(path: name.path) == .missing else { continue }
                guard rename(temporary.path, name.path) == 0 else {
                    throw .cannotWrite(path: name.path, reason: String(cString: strerror(errno)))
                }
                finish()
                return name
            }
            throw .exists(path: names.last?.path ?? destination.path)
        } catch {
            discard()
            throw error
        }
    }

    /// Removes the temporary file, if it is still there.
    public func discard() {
        guard !finished else { return }
        unlink(temporary.path)
        finish()
    }

    /// Writes `data` to `destination` by the rules above, in one step.
    public static func write(_ data: Data, to destination: URL, replacing: Bool, inputs: [URL] = [],
                             throughLink: Bool = false, display: String? = nil) throws(SafeFileError) {
        let file = try OutputFile(destination, replacing: replacing, inputs: inputs, throughLink: throughLink, display: display)
        try file.write(data)
        try file.commit()
    }

    /// Mode, owner and sync before the rename.
    private func settle() throws(SafeFileError) {
        if let replaced {
            _ = fchown(descriptor, replaced.st_uid, replaced.st_gid)
            fchmod(descriptor, replaced.st_mode & 0o7777)
        } else {
            fchmod(descriptor, 0o666 & ~Self.umask)
        }
        guard fsync(descriptor) == 0 else {
            throw .cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
        }
    }

    private func finish() {
        finished = true
        close(descriptor)
        sp_temporary_unregister(slot)
        let folder = open(destination.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// The process's umask, read without changing it (`/proc/self/status`), else 022.
    static let umask: mode_t = {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            if let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) { return value }
        }
        return 0o022
    }()

    /// `realpath(3)`: every link and `.`/`..` resolved; nil if the file does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
