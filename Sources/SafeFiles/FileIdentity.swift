import Glibc
public import Foundation

/// A file's identity: its device and inode, after following symbolic links, as `stat(2)` gives
/// them. Two paths name the same file exactly when their identities are equal, whatever the
/// strings say (`./clip.mp4`, `../x/clip.mp4`, a hard link, a symbolic link).
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    /// The identity of the file at `path` (links followed), or nil when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of the file `info` describes.
    public init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of an open file.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// What kind of thing a path names, without following a symbolic link at its end (`lstat`).
enum PathKind: Equatable {
    case missing
    case regularFile
    case symbolicLink
    case folder
    /// A FIFO, a device, a socket.
    case other

    init(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            self = .missing
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFLNK: self = .symbolicLink
        case S_IFDIR: self = .folder
        default: self = .other
        }
    }
}

/// Media inputs are read only when they are regular files: `open(2)` on a FIFO with no writer
/// blocks for ever, and a device can be endless.
public enum InputFile {
    /// Throws unless `path` (links followed) is a regular file (or is missing: the caller
    /// says so in its own words).
    public static func requireRegular(_ path: String) throws(SafeFileError) {
        if let kind = irregularKind(path) { throw .notRegularInput(path: path, kind: kind) }
    }

    /// The whole of a small input (a document, a recipe, an OTIO or EDL file, a sidecar):
    /// refused when it is not a regular file or is larger than `limit` bytes.
    public static func read(_ url: URL, limit: Int = 64 << 20) throws(SafeFileError) -> Data {
        try requireRegular(url.path)
        var info = stat()
        if stat(url.path, &info) == 0, Int(info.st_size) > limit { throw .tooLarge(path: url.path, limit: limit) }
        do { return try Data(contentsOf: url) } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? error.localizedDescription : "no such file"
            throw .cannotRead(path: url.path, reason: reason)
        }
    }

    /// What `path` (links followed) is when it exists and is not a regular file: "a named
    /// pipe", "a folder", "a device", "a socket"; nil for a regular or missing file.
    public static func irregularKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
        return switch info.st_mode & S_IFMT {
        case S_IFIFO: "a named pipe"
        case S_IFDIR: "a folder"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
