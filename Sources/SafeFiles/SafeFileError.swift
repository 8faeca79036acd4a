public import Foundation

/// Why a file could not be written or read safely, stated as facts; each front end adds its advice
/// (a flag to pass, another name to choose).
public enum SafeFileError: Error, Equatable, Sendable {
    /// The target is (the same file as) one of the command's inputs.
    case isInput(path: String, input: String)
    /// The target exists and may not be replaced.
    case exists(path: String)
    /// The target exists and appeared while the output was written.
    case appeared(path: String)
    /// The target is a symbolic link, which slowpoke does not write through.
    case symbolicLink(path: String, to: String)
    /// The target is a folder, a FIFO, a device.
    case notRegularFile(path: String)
    /// A media input is a FIFO, a folder, a device.
    case notRegularInput(path: String, kind: String)
    /// A small input (a document, a recipe, an OTIO file) is larger than any real one.
    case tooLarge(path: String, limit: Int)
    case cannotRead(path: String, reason: String)
    case folderMissing(path: String, folder: String)
    case cannotWrite(path: String, reason: String)

    /// What a user can do about it that names no option; replacing an existing file
    /// (``exists(path:)``, ``appeared(path:)``) is a front end's to say.
    public var advice: String? {
        switch self {
        case .exists, .appeared: nil
        case .isInput: "choose another output name"
        case .symbolicLink: "remove the link or choose another output name"
        case .notRegularFile: "choose another output name"
        case .notRegularInput: "give a regular file"
        case .folderMissing, .cannotWrite, .tooLarge, .cannotRead: nil
        }
    }

    /// Whether the file is there and replacing it is what would let the write go ahead.
    public var replaceable: Bool {
        switch self {
        case .exists, .appeared: true
        default: false
        }
    }
}

extension SafeFileError: LocalizedError, CustomStringConvertible {
    public var description: String {
        switch self {
        case .isInput(let path, let input):
            input == path ? "\(path) is the input" : "\(path) is the same file as the input \(input)"
        case .exists(let path): "\(path) already exists"
        case .appeared(let path): "\(path) already exists: it appeared while this export ran"
        case .symbolicLink(let path, let to): "\(path) is a symbolic link to \(to), and slowpoke does not write through links"
        case .notRegularFile(let path): "\(path) exists and is not a regular file"
        case .notRegularInput(let path, let kind): "\(path) is \(kind), not a regular file"
        case .tooLarge(let path, let limit): "\(path) is larger than \(limit >> 20) MiB, more than any file of its kind"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .folderMissing(let path, let folder): "cannot write \(path): the folder \(folder) does not exist"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }

    /// The fact and the advice, as one message.
    public var errorDescription: String? { advice.map { "\(description); \($0)" } ?? description }
}
