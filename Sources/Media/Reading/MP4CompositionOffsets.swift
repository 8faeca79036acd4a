import Foundation

/// The composition offsets of an mp4 or mov's tracks (their `ctts` boxes, ISO/IEC 14496-12
/// 8.6.1.3): how far each sample's presentation time lies after its decode time, in sample
/// order. libavformat's index (``IndexedPackets``) states every sample's decode time, size,
/// position and flags, but keeps these offsets to itself; they are read here from the `moov` box,
/// without reading any sample.
///
/// ```
///   file      ftyp | mdat ......................... | moov
///   moov      trak (tkhd: track ID 1) > mdia > minf > stbl > ctts: (count, offset) runs
/// ```
struct MP4CompositionOffsets {
    /// Per track ID (libavformat's `AVStream.id` for mov), the `(count, offset)` runs of its
    /// `ctts` box; a track without one is absent (its samples are shown at their decode times).
    let tracks: [Int32: [(count: Int64, offset: Int64)]]

    /// The offsets of the file at `path`; nil when it has no `moov` box among its top-level
    /// boxes, a malformed one, or is fragmented (`mvex`: samples the header does not list).
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let moov = Self.topLevelBox("moov", in: handle) else { return nil }
        var found: [Int32: [(count: Int64, offset: Int64)]] = [:]
        var fragmented = false
        Self.children(of: moov[...]) { type, body in
            if type == "mvex" { fragmented = true }
            guard type == "trak" else { return }
            var id: Int32?
            var runs: [(count: Int64, offset: Int64)]?
            Self.children(of: body) { type, body in
                if type == "tkhd" { id = Self.trackID(body) }
                if type == "mdia" { runs = Self.compositionRuns(inMedia: body) }
            }
            if let id, let runs { found[id] = runs }
        }
        guard !fragmented else { return nil }
        tracks = found
    }

    /// The body of the first top-level box of `type`, read whole; nil when there is none.
    private static func topLevelBox(_ type: String, in handle: FileHandle) -> Data? {
        var offset: UInt64 = 0
        while true {
            guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 16), header.count >= 8 else { return nil }
            var size = UInt64(bigEndian32(header, 0))
            var headerSize: UInt64 = 8
            if size == 1 {
                guard header.count >= 16 else { return nil }
                size = UInt64(bigEndian32(header, 8)) << 32 | UInt64(bigEndian32(header, 12))
                headerSize = 16
            }
            let name = String(decoding: header[header.startIndex + 4 ..< header.startIndex + 8], as: UTF8.self)
            if name == type {
                // A size of 0 runs to the end of the file; the moov of a long recording is a few MB.
                guard (try? handle.seek(toOffset: offset + headerSize)) != nil else { return nil }
                let body = size == 0 ? try? handle.readToEnd() : try? handle.read(upToCount: Int(size - headerSize))
                return body.flatMap { size == 0 || UInt64($0.count) == size - headerSize ? $0 : nil }
            }
            guard size >= headerSize else { return nil }
            offset += size
        }
    }

    /// Calls `body` with the type and body of each box in `data`, in order; stops at a malformed one.
    private static func children(of data: Data.SubSequence, _ body: (String, Data.SubSequence) -> Void) {
        var at = data.startIndex
        while data.endIndex - at >= 8 {
            var size = Int(bigEndian32(data, at - data.startIndex))
            var headerSize = 8
            if size == 1 {
                guard data.endIndex - at >= 16 else { return }
                size = Int(UInt64(bigEndian32(data, at - data.startIndex + 8)) << 32 | UInt64(bigEndian32(data, at - data.startIndex + 12)))
                headerSize = 16
            } else if size == 0 {
                size = data.endIndex - at
            }
            guard size >= headerSize, size <= data.endIndex - at else { return }
            body(String(decoding: data[at + 4 ..< at + 8], as: UTF8.self), data[at + headerSize ..< at + size])
            at += size
        }
    }

    /// The track ID a `tkhd` body states (after its creation and modification times, 32 or 64
    /// bits each by version).
    private static func trackID(_ body: Data.SubSequence) -> Int32? {
        guard let version = body.first else { return nil }
        let at = version == 1 ? 20 : 12
        guard body.count >= at + 4 else { return nil }
        return Int32(bitPattern: bigEndian32(body, at))
    }

    /// The `ctts` runs of an `mdia` body (mdia > minf > stbl > ctts); nil without a `ctts`.
    private static func compositionRuns(inMedia media: Data.SubSequence) -> [(count: Int64, offset: Int64)]? {
        var runs: [(count: Int64, offset: Int64)]?
        children(of: media) { type, minf in
            guard type == "minf" else { return }
            children(of: minf) { type, stbl in
                guard type == "stbl" else { return }
                children(of: stbl) { type, ctts in
                    guard type == "ctts", ctts.count >= 8 else { return }
                    let entries = Int(bigEndian32(ctts, 4))
                    guard entries >= 0, ctts.count >= 8 + 8 * entries else { return }
                    // Offsets are signed in version 1; libavformat reads both versions as signed.
                    runs = (0..<entries).map { i in
                        (Int64(bigEndian32(ctts, 8 + 8 * i)), Int64(Int32(bitPattern: bigEndian32(ctts, 12 + 8 * i))))
                    }
                }
            }
        }
        return runs
    }

    /// The big-endian 32-bit number `offset` bytes into `data`.
    private static func bigEndian32<D: DataProtocol>(_ data: D, _ offset: Int) -> UInt32 where D.Index == Int {
        let at = data.startIndex + offset
        return UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
    }
}
