import Foundation
import SafeFiles
import Glibc
public import TimePitch

/// A plain PCM or float WAV file read natively, without libavformat or libavcodec, as an
/// ``AudioSource``.
///
/// `slowpoke stretch` uses it in place of ``AudioFileReader`` when ``open(url:)`` understands
/// the file, so that a WAV-to-WAV job never loads libav's codec libraries (tens of milliseconds
/// of start-up). The samples are exactly those libav's decoder and swresample give for the same
/// file:
///
/// | on disk                     | libav name | to Float                         |
/// |-----------------------------|------------|----------------------------------|
/// | 8-bit unsigned              | `u8`       | (x - 128) / 128                  |
/// | 16-bit                      | `s16`      | x / 32768                        |
/// | 24-bit (decoded as 32-bit)  | `s32`      | (x << 8) / 2^31                  |
/// | 32-bit                      | `s32`      | Float(x) / 2^31, rounded to even |
/// | 32-bit float                | `flt`      | as is                            |
/// | 64-bit float                | `dbl`      | narrowed, rounded to even        |
///
/// Reads are random access and repeatable: each one is a `pread` of the frames it needs into a
/// reused buffer, converted with pointers. Frames before 0 or past the end read as silence.
public final class WAVFileReader: AudioSource {
    public let format: AudioFormat
    public let path: String
    /// The file's length in frames: whole frames of the data chunk (a trailing partial frame
    /// is ignored).
    public let frameCount: Int64
    /// Told if the file shrinks while it is being read (the missing frames read as silence).
    public var onWarning: ((String) -> Void)?

    private let layout: Layout
    private let descriptor: Int32
    /// Raw bytes from the file, reused from read to read.
    private var buffer: UnsafeMutableRawPointer
    private var bufferCapacity: Int
    private var warnedShort = false

    /// Bytes read per `pread` at most, so that one large request needs no huge buffer.
    private static let chunkBytes = 1 << 20

    /// What the header says: where the samples are and how they are stored.
    struct Layout: Equatable {
        enum Encoding: Equatable { case u8, s16, s24, s32, f32, f64 }
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        /// Offset of the first sample byte, and the bytes of whole frames from there.
        var dataOffset: Int64
        var dataBytes: Int64

        var bytesPerSample: Int {
            switch encoding {
            case .u8: 1
            case .s16: 2
            case .s24: 3
            case .s32, .f32: 4
            case .f64: 8
            }
        }

        var blockAlign: Int { bytesPerSample * channels }
    }

    /// Opens `url` if it is a WAV file this reader fully understands: RIFF or RF64, integer
    /// PCM of 8, 16, 24 or 32 bits or float of 32 or 64 bits, plain or WAVE_FORMAT_EXTENSIBLE.
    /// Returns nil for anything else (another container, a compressed WAV, a header it cannot
    /// make sense of), for ``AudioFileReader`` to try instead.
    ///
    /// Throws, with ``AudioFileReader``'s wording, when the file is missing or empty, and when
    /// its header's sample rate or channel count is outside ``AudioFormat/sampleRates`` or
    /// ``AudioFormat/channelCounts``.
    public static func open(url: URL) throws(MediaError) -> WAVFileReader? {
        let path = url.path
        if let kind = InputFile.irregularKind(path) { throw .cannotOpen(path: path, reason: "it is \(kind), not a regular file") }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .cannotOpen(path: path, reason: "no such file") }
            // Let libav try, and say in its own words why it cannot.
            return nil
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        guard status.st_size > 0 else {
            close(descriptor)
            throw .notMedia(path: path, reason: "the file is empty")
        }
        guard let layout = parseHeader(descriptor: descriptor, fileSize: Int64(status.st_size)) else {
            close(descriptor)
            return nil
        }
        if let refusal = AudioFormat.refusal(sampleRate: layout.sampleRate, channels: layout.channels) {
            // Refused here: libav would read such a header as it stands.
            close(descriptor)
            throw .notMedia(path: path, reason: refusal)
        }
        return WAVFileReader(path: path, descriptor: descriptor, layout: layout)
    }

    private init(path: String, descriptor: Int32, layout: Layout) {
        self.path = path
        self.descriptor = descriptor
        self.layout = layout
        format = AudioFormat(sampleRate: layout.sampleRate, channels: layout.channels)
        frameCount = layout.dataBytes / Int64(layout.blockAlign)
        bufferCapacity = max(layout.blockAlign, Self.chunkBytes / layout.blockAlign * layout.blockAlign)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferCapacity, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        close(descriptor)
    }

    /// The stream's exact length in frames.
    public func exactLength() -> Int64 { frameCount }

    /// The sample format libav's decoder reports for this file, such as `s16` (24-bit PCM
    /// decodes to `s32`).
    public var sampleFormatName: String {
        switch layout.encoding {
        case .u8: "u8"
        case .s16: "s16"
        case .s24, .s32: "s32"
        case .f32: "flt"
        case .f64: "dbl"
        }
    }

    /// Whether the file stores 16-bit (or coarser) integer samples, whose quantisation noise
    /// (about 3e-5) is far above the -120 dBFS dither R2 otherwise needs.
    public var hasCoarseQuantisation: Bool { layout.encoding == .u8 || layout.encoding == .s16 }

    public func read(at frameIndex: Int64, count: Int, into target: inout [[Float]]) throws {
        let from = max(frameIndex, 0), to = min(frameIndex + Int64(count), frameCount)
        guard to > from else {
            for c in 0..<format.channels { target[c].withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: count) } }
            return
        }
        let lead = Int(from - frameIndex), span = Int(to - from)
        for c in 0..<format.channels {
            target[c].withUnsafeMutableBufferPointer { out in
                out.baseAddress!.update(repeating: 0, count: lead)
                (out.baseAddress! + lead + span).update(repeating: 0, count: count - lead - span)
            }
        }
        let blockAlign = layout.blockAlign
        let chunkFrames = bufferCapacity / blockAlign
        var done = 0
        while done < span {
            let n = min(span - done, chunkFrames)
            let offset = layout.dataOffset + (from + Int64(done)) * Int64(blockAlign)
            let got = try readFully(bytes: n * blockAlign, at: offset) / blockAlign
            convert(frames: got, into: &target, at: lead + done)
            if got < n {
                // The file is shorter than its header said when opened: silence for the rest.
                for c in 0..<format.channels {
                    target[c].withUnsafeMutableBufferPointer { out in
                        (out.baseAddress! + lead + done + got).update(repeating: 0, count: span - done - got)
                    }
                }
                if !warnedShort {
                    warnedShort = true
                    onWarning?("\(path) ended early, at frame \(from + Int64(done + got)) of \(frameCount); it was changed while being read, and the rest reads as silence")
                }
                return
            }
            done += n
        }
    }

    /// Reads up to `bytes` into the buffer from file offset `offset`; returns fewer only at
    /// the end of the file.
    private func readFully(bytes: Int, at offset: Int64) throws(MediaError) -> Int {
        var total = 0
        while total < bytes {
            let got = pread(descriptor, buffer + total, bytes - total, off_t(offset) + off_t(total))
            if got < 0 {
                if errno == EINTR { continue }
                throw .cannotOpen(path: path, reason: "reading at byte \(offset + Int64(total)) failed: \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            total += got
        }
        return total
    }

    /// Converts `frames` interleaved frames from the buffer into `target`'s planes from
    /// position `at`, as swresample would to planar float.
    private func convert(frames: Int, into target: inout [[Float]], at: Int) {
        guard frames > 0 else { return }
        let channels = format.channels, blockAlign = layout.blockAlign, encoding = layout.encoding
        let source = UnsafeRawPointer(buffer)
        for c in 0..<channels {
            target[c].withUnsafeMutableBufferPointer { plane in
                let out = plane.baseAddress! + at
                switch encoding {
                case .u8:
                    let p = source.assumingMemoryBound(to: UInt8.self) + c
                    for i in 0..<frames { out[i] = Float(Int32(p[i * channels]) - 0x80) * (1 / 128) }
                case .s16:
                    let p = source + c * 2
                    for i in 0..<frames {
                        out[i] = Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: i * blockAlign, as: Int16.self))) * (1 / 32768)
                    }
                case .s24:
                    // libav's decoder widens to 32 bits (x << 8); that integer is what
                    // swresample scales, exactly.
                    let p = source.assumingMemoryBound(to: UInt8.self) + c * 3
                    for i in 0..<frames {
                        let b = p + i * blockAlign
                        let x = Int32(bitPattern: UInt32(b[0]) << 8 | UInt32(b[1]) << 16 | UInt32(b[2]) << 24)
                        out[i] = Float(x) * (1 / 2_147_483_648)
                    }
                case .s32:
                    let p = source + c * 4
                    for i in 0..<frames {
                        out[i] = Float(Int32(littleEndian: p.loadUnaligned(fromByteOffset: i * blockAlign, as: Int32.self))) * (1 / 2_147_483_648)
                    }
                case .f32:
                    let p = source + c * 4
                    for i in 0..<frames {
                        out[i] = Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i * blockAlign, as: UInt32.self)))
                    }
                case .f64:
                    let p = source + c * 8
                    for i in 0..<frames {
                        out[i] = Float(Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i * blockAlign, as: UInt64.self))))
                    }
                }
            }
        }
    }
}

// MARK: - The header

extension WAVFileReader {
    /// The KSDATAFORMAT_SUBTYPE GUID's bytes after its first four (the format tag), as stored.
    package static let subtypeGUIDTail: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Walks the chunks of the file open on `descriptor`; nil unless it is a WAV of a kind this
    /// reader handles completely.
    ///
    /// Chunks are word aligned (an odd size is followed by a pad byte). `fmt ` may come before
    /// or after `data`. A `data` size of 0xFFFFFFFF (a writer that never came back to fill it
    /// in), or one that runs past the end of the file, means "to the end of the file"; as for
    /// libav, an RF64 file's `ds64` chunk, which must come first, gives the data size. A data
    /// size of 0 is left to libav, which also reads it as "to the end of the file" but does
    /// not state the length.
    static func parseHeader(descriptor: Int32, fileSize: Int64) -> Layout? {
        func bytes(at offset: Int64, _ count: Int) -> [UInt8]? {
            guard offset >= 0, offset + Int64(count) <= fileSize else { return nil }
            var data = [UInt8](repeating: 0, count: count)
            let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
            return got == count ? data : nil
        }
        guard let riff = bytes(at: 0, 12), riff[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        let rf64: Bool
        switch String(decoding: riff[0..<4], as: UTF8.self) {
        case "RIFF": rf64 = false
        case "RF64": rf64 = true
        default: return nil
        }
        var position: Int64 = 12
        var ds64DataSize: Int64?
        if rf64 {
            guard let head = bytes(at: 12, 8), head[0..<4].elementsEqual("ds64".utf8) else { return nil }
            let size = Int64(head.le32(4))
            guard size >= 24, let body = bytes(at: 20, 24) else { return nil }
            let dataSize = body.le64(8)
            guard dataSize > 0, dataSize < UInt64(Int64.max) else { return nil }
            ds64DataSize = Int64(dataSize)
            position = 20 + size + (size & 1)
        }
        var fmt: [UInt8]?
        var data: (offset: Int64, size: Int64)?
        while fmt == nil || data == nil {
            guard let head = bytes(at: position, 8) else { break }
            let id = String(decoding: head[0..<4], as: UTF8.self)
            let size = Int64(head.le32(4))
            let body = position + 8
            switch id {
            case "fmt ":
                guard fmt == nil, size >= 16, let read = bytes(at: body, Int(min(size, 64))) else { return nil }
                fmt = read
            case "data":
                guard data == nil else { return nil }
                var length: Int64
                if let ds64DataSize {
                    length = ds64DataSize
                } else if size == 0xFFFF_FFFF {
                    length = .max
                } else if size == 0 {
                    return nil
                } else {
                    length = size
                }
                let toEnd = length > fileSize - body
                if toEnd { length = fileSize - body }
                data = (body, length)
                if toEnd {
                    // Nothing follows but samples.
                    position = fileSize
                    continue
                }
                position = body + length + (length & 1)
                continue
            default:
                break
            }
            position = body + size + (size & 1)
        }
        guard let fmt, let data else { return nil }
        return parseFormat(fmt, dataOffset: data.offset, dataBytes: data.size)
    }

    /// Reads a `fmt ` chunk's body (its first 64 bytes at most).
    static func parseFormat(_ fmt: [UInt8], dataOffset: Int64, dataBytes: Int64) -> Layout? {
        var tag = fmt.le16(0)
        let channels = Int(fmt.le16(2)), sampleRate = Int(fmt.le32(4))
        let blockAlign = Int(fmt.le16(12)), bits = Int(fmt.le16(14))
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: cbSize, valid bits, channel mask, subformat GUID.
            guard fmt.count >= 40, fmt.le16(16) >= 22 else { return nil }
            let validBits = Int(fmt.le16(18))
            guard validBits <= bits, fmt[28..<40].elementsEqual(subtypeGUIDTail), fmt.le16(26) == 0 else { return nil }
            // Fewer valid bits than the container holds (20 in 24, say) are still stored
            // left-aligned in the container, which is what gets read.
            tag = fmt.le16(24)
        }
        let encoding: Layout.Encoding
        switch (tag, bits) {
        case (1, 8): encoding = .u8
        case (1, 16): encoding = .s16
        case (1, 24): encoding = .s24
        case (1, 32): encoding = .s32
        case (3, 32): encoding = .f32
        case (3, 64): encoding = .f64
        default: return nil
        }
        guard channels > 0, sampleRate > 0 else { return nil }
        var layout = Layout(encoding: encoding, channels: channels, sampleRate: sampleRate, dataOffset: dataOffset, dataBytes: 0)
        guard blockAlign == layout.blockAlign else { return nil }
        layout.dataBytes = dataBytes / Int64(blockAlign) * Int64(blockAlign)
        return layout
    }
}

private extension [UInt8] {
    func le16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func le32(_ at: Int) -> UInt32 { UInt32(le16(at)) | UInt32(le16(at + 2)) << 16 }
    func le64(_ at: Int) -> UInt64 { UInt64(le32(at)) | UInt64(le32(at + 4)) << 32 }
}
