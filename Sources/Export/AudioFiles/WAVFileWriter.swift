import Foundation
public import SafeFiles
import Glibc
public import TimePitch
import Media

/// Writes planar float audio to a WAV file natively, without libavformat or libavcodec.
///
/// The file is what ``AudioFileWriter`` makes of the same audio, as ffprobe and any decoder see
/// it: the same codec (`pcm_s16le`, `pcm_s24le`, `pcm_f32le`), channel layout (libav's default
/// for the channel count) and samples, converted as swresample converts:
///
/// | depth    | sample                                        |
/// |----------|-----------------------------------------------|
/// | int16    | clip(lrintf(x * 32768)) to 16 bits            |
/// | int24    | clip(llrintf(x * 2^31)) to 32 bits, then >> 8 |
/// | float32  | x                                             |
///
/// As libav's muxer does, it uses WAVE_FORMAT_EXTENSIBLE, with the layout's channel mask, for
/// more than two channels, more than 16 bits or rates above 48 kHz, and adds a `fact` chunk to
/// float files. Unlike it, the file may grow past 4 GiB: a `JUNK` chunk holds room for a
/// `ds64` chunk, and ``finish()`` turns the file into RF64 (EBU Tech 3306) when its sizes no
/// longer fit in 32 bits.
///
/// The file is written under a temporary name (see ``OutputFile``) in large blocks, and
/// appears only when ``finish()`` succeeds.
public final class WAVFileWriter {
    public let format: AudioFormat
    public let output: OutputFile
    public let depth: AudioFileWriter.Depth

    /// The largest RIFF size (the file's length less 8) a plain WAV can state. Past it,
    /// ``finish()`` writes RF64.
    static let riffLimit: Int64 = 0xFFFF_FFFF

    private let limit: Int64
    private var descriptor: Int32
    private let header: Header
    private let buffer: UnsafeMutableRawPointer
    private let bufferCapacity: Int
    private var buffered = 0
    /// Sample bytes written (or buffered) so far.
    private var dataBytes: Int64 = 0

    private static let bufferBytes = 1 << 20

    /// Where the sizes go in the header, which ``finish()`` fills in.
    struct Header {
        var bytes: [UInt8] = []
        var junkOffset = 0
        var factOffset: Int?
        /// Offset of the data chunk's size field; the samples follow it.
        var dataSizeOffset = 0
    }

    /// Opens `output`'s temporary file for `format` audio at `depth`.
    public convenience init(output: OutputFile, format: AudioFormat, depth: AudioFileWriter.Depth) throws(ExportError) {
        try self.init(output: output, format: format, depth: depth, riffLimit: WAVFileWriter.riffLimit)
    }

    /// As the public initialiser, with the size past which the file becomes RF64 (tests lower
    /// it to check the conversion on a small file).
    init(output: OutputFile, format: AudioFormat, depth: AudioFileWriter.Depth, riffLimit: Int64) throws(ExportError) {
        precondition(format.channels > 0 && format.sampleRate > 0)
        let blockAlign = Self.bytesPerSample(depth) * format.channels
        guard format.channels <= 0xFFFF, UInt32(exactly: format.sampleRate * blockAlign) != nil else {
            throw .unsupported("a WAV file cannot hold \(format.channels) channels at \(format.sampleRate) Hz")
        }
        self.output = output
        self.format = format
        self.depth = depth
        limit = riffLimit
        header = Self.header(format: format, depth: depth)
        descriptor = dup(output.descriptor)
        guard descriptor >= 0 else { throw .cannotWrite(path: output.destination.path, reason: String(cString: strerror(errno))) }
        bufferCapacity = max(Self.bufferBytes / blockAlign, 1) * blockAlign + header.bytes.count
        // Room for 24-bit samples' 4-byte stores to run one byte past the last frame.
        buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferCapacity + 4, alignment: 16)
        header.bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        buffered = header.bytes.count
    }

    deinit {
        buffer.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    static func bytesPerSample(_ depth: AudioFileWriter.Depth) -> Int {
        switch depth {
        case .int16: 2
        case .int24: 3
        case .float32: 4
        }
    }

    /// Appends `count` frames.
    public func write(_ samples: [[Float]], count: Int) throws {
        precondition(samples.count == format.channels && samples.allSatisfy { $0.count >= count })
        let channels = format.channels, width = Self.bytesPerSample(depth), blockAlign = width * channels
        var done = 0
        while done < count {
            if bufferCapacity - buffered < blockAlign { try flush() }
            let n = min(count - done, (bufferCapacity - buffered) / blockAlign)
            let base = buffer + buffered
            if channels == 2 {
                samples[0].withUnsafeBufferPointer { left in
                    samples[1].withUnsafeBufferPointer { right in
                        Self.convertStereo(left.baseAddress! + done, right.baseAddress! + done, count: n, depth: depth, to: base)
                    }
                }
            } else {
                for c in 0..<channels {
                    samples[c].withUnsafeBufferPointer { plane in
                        Self.convert(plane.baseAddress! + done, count: n, depth: depth, to: base + c * width, stride: blockAlign)
                    }
                }
            }
            buffered += n * blockAlign
            dataBytes += Int64(n * blockAlign)
            done += n
        }
    }

    /// Writes what is buffered and the sizes in the header, and moves the file into place.
    public func finish() throws {
        guard descriptor >= 0 else { return }
        // A chunk of odd size is followed by a pad byte (24-bit mono, odd frame count).
        let pad = Int(dataBytes & 1)
        if pad == 1 {
            if buffered == bufferCapacity { try flush() }
            buffer.storeBytes(of: 0, toByteOffset: buffered, as: UInt8.self)
            buffered += 1
        }
        try flush()
        let fileSize = Int64(header.bytes.count) + dataBytes + Int64(pad)
        let frames = dataBytes / Int64(Self.bytesPerSample(depth) * format.channels)
        if fileSize - 8 > limit {
            // RF64: the 32-bit sizes say "see ds64", which replaces the JUNK chunk.
            try patch(Array("RF64".utf8) + le32(0xFFFF_FFFF), at: 0)
            try patch(Array("ds64".utf8) + le32(28) + le64(UInt64(fileSize - 8)) + le64(UInt64(dataBytes))
                      + le64(UInt64(frames)) + le32(0), at: header.junkOffset)
            if let factOffset = header.factOffset { try patch(le32(0xFFFF_FFFF), at: factOffset) }
            try patch(le32(0xFFFF_FFFF), at: header.dataSizeOffset)
        } else {
            try patch(le32(UInt32(fileSize - 8)), at: 4)
            if let factOffset = header.factOffset { try patch(le32(UInt32(frames)), at: factOffset) }
            try patch(le32(UInt32(dataBytes)), at: header.dataSizeOffset)
        }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw fail() }
        try output.commitExport()
    }

    /// The error for the last failed call, naming the destination.
    private func fail() -> ExportError {
        .cannotWrite(path: output.destination.path, reason: String(cString: strerror(errno)))
    }

    /// Writes the buffer out.
    private func flush() throws(ExportError) {
        var written = 0
        while written < buffered {
            let result = Glibc.write(descriptor, buffer + written, buffered - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw fail()
            }
            written += result
        }
        buffered = 0
    }

    private func patch(_ bytes: [UInt8], at offset: Int) throws(ExportError) {
        let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
        guard result == bytes.count else {
            if result >= 0 { errno = EIO }
            throw fail()
        }
    }

    /// Converts `count` samples to `depth` at `target`, `stride` bytes apart.
    private static func convert(_ source: UnsafePointer<Float>, count: Int, depth: AudioFileWriter.Depth,
                                to target: UnsafeMutableRawPointer, stride: Int) {
        switch depth {
        case .int16:
            for i in 0..<count {
                target.storeBytes(of: int16(source[i]).littleEndian, toByteOffset: i * stride, as: Int16.self)
            }
        case .int24:
            for i in 0..<count {
                let v = UInt32(bitPattern: int32(source[i]))
                let p = target + i * stride
                p.storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), as: UInt8.self)
                p.storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), toByteOffset: 1, as: UInt8.self)
                p.storeBytes(of: UInt8(truncatingIfNeeded: v >> 24), toByteOffset: 2, as: UInt8.self)
            }
        case .float32:
            for i in 0..<count {
                target.storeBytes(of: source[i].bitPattern.littleEndian, toByteOffset: i * stride, as: UInt32.self)
            }
        }
    }

    /// The same for two channels, frame by frame: the common case, in loops the compiler can
    /// vectorise. A 24-bit sample is stored as 4 bytes whose last one the next sample (or the
    /// buffer's spare byte) overwrites.
    private static func convertStereo(_ left: UnsafePointer<Float>, _ right: UnsafePointer<Float>, count: Int,
                                      depth: AudioFileWriter.Depth, to target: UnsafeMutableRawPointer) {
        switch depth {
        case .int16:
            let out = target.assumingMemoryBound(to: Int16.self)
            for i in 0..<count {
                out[2 * i] = int16(left[i]).littleEndian
                out[2 * i + 1] = int16(right[i]).littleEndian
            }
        case .int24:
            for i in 0..<count {
                target.storeBytes(of: UInt32(bitPattern: int32(left[i]) >> 8).littleEndian, toByteOffset: 6 * i, as: UInt32.self)
                target.storeBytes(of: UInt32(bitPattern: int32(right[i]) >> 8).littleEndian, toByteOffset: 6 * i + 3, as: UInt32.self)
            }
        case .float32:
            let out = target.assumingMemoryBound(to: UInt32.self)
            for i in 0..<count {
                out[2 * i] = left[i].bitPattern.littleEndian
                out[2 * i + 1] = right[i].bitPattern.littleEndian
            }
        }
    }

    /// swresample's float to 16-bit: `av_clip_int16(lrintf(x * 32768))`. For NaN, infinities
    /// and |x| >= 65536, libav's own C and SIMD conversions disagree (NaN gives 0 in one,
    /// -32768 in the other); here they clip, and NaN gives 0.
    @inline(__always)
    static func int16(_ x: Float) -> Int16 {
        var v = x * 32768
        v = v.isNaN ? 0 : v
        v = v > -32768 ? v : -32768
        v = v < 32767 ? v : 32767
        // Adding 1.5 * 2^23 rounds to an integer, half to even as lrintf does, and leaves it in
        // the low bits of the sum's mantissa (exact for |v| < 2^22).
        return Int16(truncatingIfNeeded: (v + 12_582_912).bitPattern)
    }

    /// swresample's float to 32-bit: `av_clipl_int32(llrintf(x * 2^31))`. Infinities clip and
    /// NaN gives 0 (libav's conversions disagree there too).
    @inline(__always)
    static func int32(_ x: Float) -> Int32 {
        // x * 2^31 is exact in Double, where adding 1.5 * 2^52 rounds it the same way.
        var d = Double(x) * 2_147_483_648
        d = d.isNaN ? 0 : d
        d = d > -2_147_483_648 ? d : -2_147_483_648
        d = d < 2_147_483_647 ? d : 2_147_483_647
        return Int32(truncatingIfNeeded: (d + 6_755_399_441_055_744).bitPattern)
    }
}

// MARK: - The header

extension WAVFileWriter {
    /// libav's default channel masks (`av_channel_layout_default`) for 1 to 8 channels: mono,
    /// stereo, 2.1, 4.0, 5.0, 5.1, 6.1, 7.1. For 16 and 24 channels it has native layouts
    /// (hexadecagonal, 22.2) whose masks do not fit in a WAV's 32 bits; otherwise none.
    static func defaultChannelMask(_ channels: Int) -> (native: Bool, mask: UInt32) {
        switch channels {
        case 1: (true, 0x4)
        case 2: (true, 0x3)
        case 3: (true, 0xB)
        case 4: (true, 0x107)
        case 5: (true, 0x37)
        case 6: (true, 0x3F)
        case 7: (true, 0x70F)
        case 8: (true, 0x63F)
        // libav's muxer writes no mask at or above 0x40000.
        case 16, 24: (true, 0)
        default: (false, 0)
        }
    }

    /// The header libav's wav muxer writes for `format` and `depth` (less its LIST INFO chunk),
    /// with a JUNK chunk first that finish() may turn into ds64.
    static func header(format: AudioFormat, depth: AudioFileWriter.Depth) -> Header {
        let bits = bytesPerSample(depth) * 8
        let blockAlign = bytesPerSample(depth) * format.channels
        let tag: UInt16 = depth == .float32 ? 3 : 1
        let (native, mask) = defaultChannelMask(format.channels)
        let extensible = (native && format.channels > 2) || format.sampleRate > 48000 || bits > 16
        var fmt = le16(extensible ? 0xFFFE : tag) + le16(UInt16(format.channels)) + le32(UInt32(format.sampleRate))
            + le32(UInt32(format.sampleRate * blockAlign)) + le16(UInt16(blockAlign)) + le16(UInt16(bits))
        if extensible {
            fmt += le16(22) + le16(UInt16(bits)) + le32(mask)
            fmt += le32(UInt32(tag)) + WAVFileReader.subtypeGUIDTail
        } else if tag != 1 {
            fmt += le16(0)
        }
        var header = Header()
        var bytes = Array("RIFF".utf8) + le32(0) + Array("WAVE".utf8)
        header.junkOffset = bytes.count
        bytes += Array("JUNK".utf8) + le32(28) + [UInt8](repeating: 0, count: 28)
        bytes += Array("fmt ".utf8) + le32(UInt32(fmt.count)) + fmt
        if tag != 1 {
            bytes += Array("fact".utf8) + le32(4)
            header.factOffset = bytes.count
            bytes += le32(0)
        }
        bytes += Array("data".utf8)
        header.dataSizeOffset = bytes.count
        bytes += le32(0)
        header.bytes = bytes
        return header
    }
}

private func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
private func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(truncatingIfNeeded: v)) + le16(UInt16(truncatingIfNeeded: v >> 16)) }
private func le64(_ v: UInt64) -> [UInt8] { le32(UInt32(truncatingIfNeeded: v)) + le32(UInt32(truncatingIfNeeded: v >> 32)) }
