public import SafeFiles
public import Foundation

/// Exports write through SafeFiles' ``OutputFile``, the one writer; these give its errors as
/// ``ExportError``s.
extension OutputFile {
    /// Claims `destination` for an export, refusing any of `inputs` and, unless `force`, an
    /// existing file.
    static func claim(_ destination: URL, force: Bool, inputs: [URL]) throws(ExportError) -> OutputFile {
        do { return try OutputFile(destination, replacing: force, inputs: inputs) } catch { throw .output(error) }
    }

    /// ``commit()``, with export errors.
    func commitExport() throws(ExportError) {
        do { try commit() } catch { throw .output(error) }
    }
}
