import Foundation
internal import CFFmpeg

/// A movie opened to read samples straight from where its index says they lie (``IndexedPackets``),
/// without a demuxer: an 8-hour mp4's demuxer holds the index of every stream, 20 MB, and
/// copying one stream's packets needs only their positions and sizes.
package final class SampleFile {
    private let descriptor: Int32
    let path: String

    package init(path: String) throws(MediaError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// The bytes last read, from `bufferStart`: samples lying close together (an mp4's chunk
    /// of audio frames, the next chunk beyond a chunk of video) come from one read.
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var bufferStart: Int64 = 0
    private var bufferCount = 0

    /// Reads the `size` bytes at `position` into `packet` (a keyframe of stream `stream`, one an
    /// edit list hides when `discarded`), as the demuxer would have read them.
    package func read(position: Int64, size: Int32, stream: Int, discarded: Bool, into packet: Packet) throws(MediaError) {
        LibAVCodec.packetUnref(packet.pointer)
        let made = LibAVCodec.newPacket(packet.pointer, size)
        guard made >= 0 else { throw .libav(AVFailure(code: made, operation: "allocating a packet")) }
        let count = Int(size)
        let data = packet.pointer.pointee.data!
        if count > buffer.count {
            try fill(data, count: count, at: position, exactly: true)
        } else {
            if position < bufferStart || position + Int64(count) > bufferStart + Int64(bufferCount) {
                bufferCount = try buffer.withUnsafeMutableBufferPointer { (b) throws(MediaError) -> Int in
                    try fill(b.baseAddress!, count: b.count, at: position, exactly: false)
                }
                bufferStart = position
                guard bufferCount >= count else {
                    throw .av(path: path, AVFailure(code: sp_averror(EIO), operation: "reading a packet"))
                }
            }
            buffer.withUnsafeBufferPointer { data.update(from: $0.baseAddress! + Int(position - bufferStart), count: count) }
        }
        packet.pointer.pointee.stream_index = Int32(stream)
        packet.pointer.pointee.flags = AV_PKT_FLAG_KEY | (discarded ? AV_PKT_FLAG_DISCARD : 0)
        packet.pointer.pointee.pos = position
    }

    /// Reads up to `count` bytes at `position` into `target` (all of them when `exactly`);
    /// returns how many were read.
    private func fill(_ target: UnsafeMutablePointer<UInt8>, count: Int, at position: Int64, exactly: Bool) throws(MediaError) -> Int {
        var done = 0
        while done < count {
            let got = pread(descriptor, target + done, count - done, off_t(position) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got == 0 && !exactly { break }
            // A file cut short since it was opened ends early: an input/output error, as libav says it.
            guard got > 0 else { throw .av(path: path, AVFailure(code: sp_averror(got < 0 ? errno : EIO), operation: "reading a packet")) }
            done += got
        }
        return done
    }
}
