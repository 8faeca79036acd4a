import Foundation

/// What a kept stabilization analysis (a libvidstab `.trf` file, kept beside the document) must
/// be before vidstabtransform is given it, since anyone who can write the folder can put
/// anything there: a regular file (not a link, a FIFO or a folder) of a bounded size, sealed by
/// slowpoke with a comment line naming the movie and the video stream it was made from and a
/// CRC-32 of the rest, and in libvidstab's grammar throughout (its header, then `Frame N (List
/// M [(LM …),…])` for frames 1 to the stream's count, every number bounded). Anything else is
/// analysed again.
package enum StabilizationAnalysisFile {
    /// The largest analysis kept per frame (libvidstab writes a few kB for 4K at accuracy 15).
    static let bytesPerFrame = 64 << 10
    static let seal = "# slowpoke movie="

    /// Why the file at `url` cannot be used for video stream `stream` of the movie `movieKey`,
    /// of `count` frames, said of the file (`was damaged (its checksum differs)`); nil when it
    /// can; `missing` when there is nothing there at all.
    package static func problem(_ url: URL, movieKey: String, stream: Int, count: Int) -> String? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return "missing" }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return "was a symbolic link"
        case S_IFDIR: return "was a folder"
        default: return "was not a regular file"
        }
        guard Int(info.st_size) <= limit(count) else { return "was larger than any analysis of \(count) frames (\(info.st_size) bytes)" }
        // Opened without following a link that appeared since, and not blocking on a FIFO.
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "could not be read" }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        guard let data = try? handle.read(upToCount: limit(count) + 1) else { return "could not be read" }
        return check([UInt8](data), movieKey: movieKey, stream: stream, count: count)
    }

    static func limit(_ count: Int) -> Int { 4096 + count * bytesPerFrame }

    /// `detected` (vidstabdetect's output for the movie's video stream `stream`) with the seal
    /// after its first line.
    static func sealed(_ detected: [UInt8], movieKey: String, stream: Int) throws -> [UInt8] {
        guard let newline = detected.firstIndex(of: 0x0A) else { throw MediaError.unsupported("the stabilization analysis came out empty") }
        let rest = Array(detected[(newline + 1)...])
        // Not checked against the grammar: libvidstab's own output is trusted as it is written
        // (a line the grammar does not foresee only makes the next run analyse again).
        return Array(detected[...newline]) + Array("\(seal)\(movieKey) stream=\(stream) crc32=\(CRC32.of(rest))\n".utf8) + rest
    }

    /// Why `bytes` are not a sealed analysis of the `count` frames of video stream `stream` of
    /// movie `movieKey`, or nil.
    static func check(_ bytes: [UInt8], movieKey: String, stream: Int, count: Int) -> String? {
        guard bytes.count <= limit(count) else { return "was too large" }
        guard bytes.allSatisfy({ $0 == 0x0A || (0x20..<0x7F).contains($0) }) else { return "held bytes no analysis has" }
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count >= 2, lines[0] == "VID.STAB 1" else { return "did not start as a libvidstab analysis" }
        guard lines[1].hasPrefix(seal) else { return "was not sealed by slowpoke" }
        let fields = lines[1].dropFirst(seal.count).split(separator: " ")
        guard fields.first == Substring(movieKey) else { return "was made from another movie" }
        guard fields.count == 3, fields[1] == "stream=\(stream)" else { return "was made from another of the movie's video streams, not stream \(stream)" }
        let start = lines[0].utf8.count + lines[1].utf8.count + 2
        guard start <= bytes.count else { return "was damaged (it ends in its seal)" }
        let rest = Array(bytes[start...])
        guard fields[2] == "crc32=\(CRC32.of(rest))" else { return "was damaged (its checksum differs)" }
        var frame = 0
        for line in lines.dropFirst(2) where !line.isEmpty {
            if line.hasPrefix("#") {
                guard frame == 0, line.count <= 200 else { return "had a comment where frames belong" }
                continue
            }
            guard let number = frameNumber(line) else { return "had a line for frame \(frame + 1) that is not libvidstab's" }
            frame += 1
            guard number == frame else { return "had its frames out of order (frame \(number) after \(frame - 1))" }
        }
        return frame == count ? nil : "held \(frame) frames; the movie has \(count)"
    }

    /// The number of a `Frame N (List M [(LM vx vy fx fy size contrast match),…])` line whose
    /// list holds M motions, every number in range; nil for anything else.
    static func frameNumber(_ line: String) -> Int? {
        let pattern = #/^Frame (\d{1,9}) \(List (\d{1,6}) \[(.*)\]\)$/#
        guard let m = line.wholeMatch(of: pattern), let number = Int(m.1), let listed = Int(m.2) else { return nil }
        let body = m.3
        if listed == 0 { return body.isEmpty ? number : nil }
        let motions = body.split(separator: "),", omittingEmptySubsequences: false)
        guard motions.count == listed else { return nil }
        let motion = #/^\(LM (-?\d{1,6}) (-?\d{1,6}) (\d{1,6}) (\d{1,6}) (\d{1,4}) (-?\d{1,9}\.\d{1,9}) (-?\d{1,9}\.\d{1,9})\)?$/#
        for (k, item) in motions.enumerated() {
            guard let lm = item.wholeMatch(of: motion), (k == listed - 1) == item.hasSuffix(")"),
                  let size = Int(lm.5), size > 0 else { return nil }
        }
        return number
    }
}
