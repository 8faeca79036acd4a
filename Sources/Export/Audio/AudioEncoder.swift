import Foundation
import TimePitch
internal import CFFmpeg
import Media

/// An opened audio encoder fed planar float blocks of any length. It cuts them into the frames
/// the codec wants, converts the samples, and hands each finished packet (in the encoder's time
/// base, 1/sample rate) to a `deliver` closure, which must consume or copy it before returning.
final class AudioEncoder {
    let context: CodecContext
    let format: AudioFormat
    private let display: String
    private let converter: SampleConverter
    private let frame: Frame
    private let packet: Packet
    /// Frames per encoder call (AAC and FLAC want whole frames; PCM takes anything).
    private let frameSize: Int
    private var pending: [[Float]]
    private var written: Int64 = 0

    /// `display` names the output in errors; `globalHeader` is the muxer's `AVFMT_GLOBALHEADER`.
    /// `layout` names the channels (the source's, in its order); by default the usual layout
    /// for their count.
    init(format: AudioFormat, codecID: AVCodecID, sampleFormat: AVSampleFormat, bitRate: Int? = nil,
         bitsPerRawSample: Int32? = nil, layout: AVChannelLayout? = nil, globalHeader: Bool, display: String) throws(ExportError) {
        try media(LibAV.load)
        self.format = format
        self.display = display
        guard let codec = LibAVCodec.findEncoder(codecID) else {
            throw .unsupported("this FFmpeg has no \(String(cString: LibAVCodec.codecName(codecID))) encoder")
        }
        context = try media { () throws(MediaError) in try CodecContext(codec: codec) }
        let e = context.pointer
        e.pointee.sample_rate = Int32(format.sampleRate)
        e.pointee.sample_fmt = sampleFormat
        var layout = Self.named(layout, channels: format.channels)
        defer { av_channel_layout_uninit(&layout) }
        av_channel_layout_copy(&e.pointee.ch_layout, &layout)
        e.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        if let bitsPerRawSample { e.pointee.bits_per_raw_sample = bitsPerRawSample }
        if let bitRate { e.pointee.bit_rate = Int64(bitRate) }
        if globalHeader { e.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        let opened = LibAVCodec.openCodec(e, codec, nil)
        guard opened >= 0 else { throw .av(path: display, AVFailure(code: opened, operation: "opening the encoder")) }
        converter = try media { () throws(MediaError) in 
            try SampleConverter(inLayout: layout, inFormat: AV_SAMPLE_FMT_FLTP, inRate: Int32(format.sampleRate),
                                outChannels: Int32(format.channels), outFormat: sampleFormat, outRate: Int32(format.sampleRate))
        }
        frame = try media(Frame.init)
        packet = try media(Packet.init)
        frameSize = e.pointee.frame_size > 0 ? Int(e.pointee.frame_size) : 4096
        pending = [[Float]](repeating: [], count: format.channels)
    }

    var timeBase: AVRational { context.pointer.pointee.time_base }

    /// `layout` if it names `channels` channels in a known order, else the default for the count.
    private static func named(_ layout: AVChannelLayout?, channels: Int) -> AVChannelLayout {
        var made = AVChannelLayout()
        if var layout, layout.nb_channels == Int32(channels), layout.order != AV_CHANNEL_ORDER_UNSPEC,
           av_channel_layout_copy(&made, &layout) >= 0 {
            return made
        }
        av_channel_layout_default(&made, Int32(channels))
        return made
    }

    /// Appends `count` frames of `samples`, delivering every packet that completes.
    func write(_ samples: [[Float]], count: Int, deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        for c in 0..<format.channels { pending[c].append(contentsOf: samples[c][0..<count]) }
        var offset = 0
        while pending[0].count - offset >= frameSize {
            try encode(from: offset, count: frameSize, deliver: deliver)
            offset += frameSize
        }
        if offset > 0 { for c in 0..<format.channels { pending[c].removeFirst(offset) } }
    }

    /// Encodes what is left and flushes the encoder, delivering the last packets.
    func finish(deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if !pending[0].isEmpty { try encode(from: 0, count: pending[0].count, deliver: deliver) }
        pending = pending.map { _ in [] }
        let flushed = LibAVCodec.sendFrame(context.pointer, nil)
        guard flushed >= 0 || flushed == sp_averror_eof() else {
            throw ExportError.av(path: display, AVFailure(code: flushed, operation: "flushing the encoder"))
        }
        try drain(deliver)
    }

    private func encode(from offset: Int, count: Int, deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let f = frame.pointer
        av_frame_unref(f)
        f.pointee.nb_samples = Int32(count)
        f.pointee.format = context.pointer.pointee.sample_fmt.rawValue
        f.pointee.sample_rate = Int32(format.sampleRate)
        let laidOut = av_channel_layout_copy(&f.pointee.ch_layout, &context.pointer.pointee.ch_layout)
        guard laidOut >= 0 else { throw ExportError.av(path: display, AVFailure(code: laidOut, operation: "setting the channel layout")) }
        let allocated = av_frame_get_buffer(f, 0)
        guard allocated >= 0 else { throw ExportError.av(path: display, AVFailure(code: allocated, operation: "allocating audio")) }
        // Planar floats in, the encoder's format out.
        try withPlanes(pending, from: offset) { planes in
            _ = try converter.convert(output: f.pointee.extended_data, capacity: count, input: planes, count: count)
        }
        f.pointee.pts = written
        written += Int64(count)
        let sent = LibAVCodec.sendFrame(context.pointer, f)
        guard sent >= 0 else { throw ExportError.av(path: display, AVFailure(code: sent, operation: "encoding")) }
        try drain(deliver)
    }

    private func drain(_ deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        while true {
            let received = LibAVCodec.receivePacket(context.pointer, packet.pointer)
            if received == sp_averror_eagain() || received == sp_averror_eof() { return }
            guard received >= 0 else { throw ExportError.av(path: display, AVFailure(code: received, operation: "encoding")) }
            try deliver(packet.pointer)
            LibAVCodec.packetUnref(packet.pointer)
        }
    }
}

/// Calls `body` with a C table of pointers to each array's samples from frame `offset`, valid
/// for the duration of the call.
func withPlanes<R>(_ arrays: [[Float]], from offset: Int,
                   _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>) throws -> R) rethrows -> R {
    let table = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: max(1, arrays.count))
    defer { table.deallocate() }
    func nest(_ channel: Int) throws -> R {
        if channel == arrays.count { return try body(table) }
        return try arrays[channel].withUnsafeBytes { raw in
            table[channel] = (raw.baseAddress! + offset * MemoryLayout<Float>.stride).assumingMemoryBound(to: UInt8.self)
            return try nest(channel + 1)
        }
    }
    return try nest(0)
}
