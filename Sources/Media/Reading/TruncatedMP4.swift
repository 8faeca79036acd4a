import Foundation

/// Why an mp4 or mov that libavformat cannot open is unreadable, when the reason is the common
/// one: the recording or download stopped before the index (the `moov` box, written last by
/// cameras and by encoders without faststart) reached the file. Read from the top-level box
/// headers only.
enum TruncatedMP4 {
    /// The explanation, or nil when the file is not an ISO media file or has its index.
    static func missingIndex(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd(), size >= 8 else { return nil }
        var offset: UInt64 = 0
        var first = true
        while offset + 8 <= size {
            guard (try? file.seek(toOffset: offset)) != nil, let header = try? file.read(upToCount: 16), header.count >= 8 else { return nil }
            let bytes = [UInt8](header)
            var length = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if first && type != "ftyp" { return nil }
            first = false
            if type == "moov" { return nil }
            if length == 1, bytes.count >= 16 { length = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            if length == 0 || offset + length > size {
                // The last box runs past the end of the file (or to it, unsized): cut off.
                return "its index (the moov box) is missing: the file ends \(length == 0 ? "inside its media data" : "\(offset + length - size) bytes short, inside its \(type) box"), as when a recording or download stops early. Without the index the frames cannot be found; a repair tool such as untrunc can rebuild it with the help of a whole file from the same camera"
            }
            if length < 8 { return nil }
            offset += length
        }
        return "its index (the moov box) is missing, as when a recording or download stops early"
    }
}
