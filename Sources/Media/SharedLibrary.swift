import Foundation

/// A shared library opened at run time with `dlopen` and never closed, for the libav libraries
/// that load on first use instead of with every command (see ``AVLibraries`` and
/// ``AVFilterLibrary``).
package struct SharedLibrary: @unchecked Sendable {
    // @unchecked: a handle that is never closed.
    let fileName: String
    private let handle: UnsafeMutableRawPointer
    /// Appended to the error for a missing function, saying what is unavailable.
    private let missingNote: String

    /// Opens `fileName`; `cannotLoad` words the error from dlopen's reason.
    package init(_ fileName: String, cannotLoad: (_ reason: String) -> String, missingNote: String = "") throws(MediaError) {
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            throw .unsupported(cannotLoad(dlerror().map { String(cString: $0) } ?? "not found"))
        }
        self.fileName = fileName
        self.handle = handle
        self.missingNote = missingNote
    }

    /// The function `name`, as the C function type `F`.
    package func symbol<F>(_ name: String, as type: F.Type = F.self) throws(MediaError) -> F {
        guard let address = dlsym(handle, name) else { throw .unsupported("\(fileName) has no \(name)\(missingNote)") }
        return unsafeBitCast(address, to: type)
    }
}
