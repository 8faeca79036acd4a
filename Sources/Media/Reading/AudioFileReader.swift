import Foundation
public import TimePitch
public import Composition
package import CFFmpeg

/// An audio stream of a file, decoded to planar float at its own sample rate and read by frame
/// position, as an ``AudioSource``.
///
/// Frame 0 is presentation time 0 of the stream. Reading is sequential and cheap; reading
/// behind what is buffered seeks and decodes forward to the exact frame. Frames outside the
/// stream read as silence. Memory stays bounded: a few seconds of decoded audio at most.
public final class AudioFileReader: AudioSource {
    public let format: AudioFormat
    public let path: String
    /// Where the stream ends, in frames of presentation time (frame 0 is time 0), when the
    /// container states its length: its start plus its duration. Audio that starts late (a
    /// movie whose sound begins 0.3 s in) ends that much later than its duration.
    public let statedEndFrame: Int64?
    /// Told about damaged packets that were skipped, with their time.
    public var onWarning: ((String) -> Void)?

    private let input: InputFormatContext
    private let streamIndex: Int
    private let decoder: CodecContext
    private var converter: SampleConverter?
    /// Raw audio that changes format: libavformat stamps every frame at the first format's
    /// rate, so after the first frame the audio just follows on, and a seek decodes from the top.
    private let followsOn: Bool
    /// The channels every frame is converted to (see ``formatChanges``).
    package private(set) var layout: AVChannelLayout
    private let packet: Packet
    private let frame: Frame
    private let timeBase: AVRational
    /// Samples in one tick of `timeBase` (at least 1): how far a timestamp may be off.
    private let tickSamples: Int64
    /// How far a frame's stamp may be from where it follows on before it is moved there.
    private let tolerance: Int64

    /// Decoded frames from position `bufferStart` on.
    private var buffer: [[Float]]
    private var bufferStart: Int64 = 0
    private var bufferEnd: Int64 { bufferStart + Int64(buffer[0].count) }
    private var endOfStream = false
    /// After a seek past the start, the first decoded frame lacks its predecessor's overlap
    /// (MDCT codecs such as AAC need one frame of pre-roll), so it is thrown away.
    private var discardNextFrame = false
    /// Frames kept behind the read position so that small steps back need no seek.
    private let history = 1 << 18
    /// Conversion output, reused from frame to frame: one plane per channel and their table.
    private var scratch: [UnsafeMutablePointer<Float>] = []
    private var scratchCapacity = 0
    private lazy var planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: format.channels)

    /// Opens the best audio stream of `url`, or stream number `requested`.
    public init(url: URL, stream requested: Int? = nil) throws(MediaError) {
        path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw .notMedia(path: path, reason: "the file is empty") }
        input = try InputFormatContext(path: path)
        let index: Int
        if let requested {
            index = requested
        } else {
            let best = input.bestAudioStream
            guard best >= 0 else { throw .notMedia(path: path, reason: "it has no audio stream") }
            index = Int(best)
        }
        guard index < input.streamCount, input.stream(index).parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else {
            throw .notMedia(path: path, reason: "stream \(index) is not audio")
        }
        // Only this stream's packets are needed.
        input.readOnly(stream: index)
        streamIndex = index
        let stream = input.stream(index)
        decoder = try CodecContext.decoder(for: stream)
        let parameters = stream.parameters.pointee
        guard parameters.sample_rate > 0, parameters.ch_layout.nb_channels > 0 else {
            throw .notMedia(path: path, reason: "its audio stream has no sample rate or channels")
        }
        if let refusal = AudioFormat.refusal(sampleRate: Int(parameters.sample_rate), channels: Int(parameters.ch_layout.nb_channels)) {
            throw .notMedia(path: path, reason: refusal)
        }
        // A stream that changes format plays in one: the widest layout it has, at its first rate.
        formatChanges = try AudioFormatScan.changes(path: path, stream: index)
        layout = Self.declaredLayout(parameters.ch_layout, changes: formatChanges)
        format = AudioFormat(sampleRate: formatChanges?.first?.sampleRate ?? Int(parameters.sample_rate), channels: Int(layout.nb_channels))
        if let refusal = AudioFormat.refusal(sampleRate: format.sampleRate, channels: format.channels) {
            throw .notMedia(path: path, reason: refusal)
        }
        followsOn = formatChanges != nil && AudioFormatScan.isRaw(input)
        timeBase = stream.pointer.pointee.time_base
        // Positions count at the rate the reader plays (a changing stream's first).
        let rate = AVRational(num: 1, den: Int32(format.sampleRate))
        tickSamples = max(1, av_rescale_q_rnd(1, timeBase, rate, AV_ROUND_UP))
        // A transport stream stamps each PES packet; libavformat interpolates the stamps of the
        // frames inside it at the first format's rate, wrong by 9% a frame after 44.1 kHz
        // becomes 48 kHz: such audio follows on unless it is 100 ms off.
        tolerance = formatChanges != nil ? max(tickSamples, Int64(format.sampleRate / 10)) : tickSamples
        let duration = stream.pointer.pointee.duration, start = stream.pointer.pointee.start_time
        let stated = duration > 0 && duration != sp_av_nopts_value() ? duration + (start != sp_av_nopts_value() ? start : 0) : 0
        statedEndFrame = stated > 0 ? av_rescale_q(stated, timeBase, rate) : nil
        packet = try Packet()
        frame = try Frame()
        buffer = [[Float]](repeating: [], count: format.channels)
    }

    deinit {
        scratch.forEach { $0.deallocate() }
        planes.deallocate()
        av_channel_layout_uninit(&layout)
    }

    /// The layout a stream is read in: the widest of its formats (the first of that many
    /// channels), else its own.
    private static func declaredLayout(_ own: AVChannelLayout, changes: [AudioFormatChange]?) -> AVChannelLayout {
        var made = AVChannelLayout()
        if let changes, case let widest = AudioFormatChange.declared(changes), widest.channels > own.nb_channels {
            if widest.channelLayout.map({ av_channel_layout_from_string(&made, $0) >= 0 }) != true {
                av_channel_layout_default(&made, Int32(widest.channels))
            }
            return made
        }
        var copy = own
        if copy.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&made, copy.nb_channels) } else { av_channel_layout_copy(&made, &copy) }
        return made
    }

    /// What the reader plays when the stream changes format mid-file (nil when it keeps one):
    /// ``format`` is the widest layout among them at the first rate, the rest mixed and resampled.
    public let formatChanges: [AudioFormatChange]?

    /// The one warning line that says so.
    public var formatChangeWarning: String? {
        formatChanges.map { "audio of \((path as NSString).lastPathComponent) " + AudioFormatChange.summary($0) }
    }

    /// Whether the stream stores 16-bit (or coarser) integer samples, whose quantisation noise
    /// (about 3e-5) is far above the -120 dBFS dither R2 otherwise needs.
    public var hasCoarseQuantisation: Bool {
        ["u8", "u8p", "s16", "s16p"].contains(sampleFormatName)
    }

    /// The stream's original sample format, such as `s16` or `fltp`.
    public var sampleFormatName: String {
        av_get_sample_fmt_name(AVSampleFormat(input.stream(streamIndex).parameters.pointee.format)).map { String(cString: $0) } ?? "?"
    }

    public func read(at frameIndex: Int64, count: Int, into target: inout [[Float]]) throws {
        if frameIndex < bufferStart || frameIndex > bufferEnd + Int64(format.sampleRate) {
            try seek(to: frameIndex)
        }
        while bufferEnd < min(frameIndex + Int64(count), statedEnd) && !endOfStream {
            try decodeMore()
            // Decoding forward a long way (raw audio seeks from the top) keeps what lies behind bounded.
            let behind = Int(min(frameIndex, bufferEnd) - bufferStart) - history
            if behind > history {
                for c in 0..<format.channels { buffer[c].removeFirst(behind) }
                bufferStart += Int64(behind)
            }
        }
        // The part of the request that is buffered is copied; the rest is silence, as is
        // anything past the stream's stated end (AAC's padding, which an edit list hides).
        let end = lengthIsStated ? min(bufferEnd, statedEndFrame ?? bufferEnd) : bufferEnd
        let from = max(frameIndex, bufferStart), to = min(frameIndex + Int64(count), end)
        for c in 0..<format.channels {
            target[c].withUnsafeMutableBufferPointer { out in
                guard to > from else {
                    out.baseAddress!.update(repeating: 0, count: count)
                    return
                }
                let lead = Int(from - frameIndex), span = Int(to - from)
                out.baseAddress!.update(repeating: 0, count: lead)
                buffer[c].withUnsafeBufferPointer { source in
                    (out.baseAddress! + lead).update(from: source.baseAddress! + Int(from - bufferStart), count: span)
                }
                (out.baseAddress! + lead + span).update(repeating: 0, count: count - lead - span)
            }
        }
        // Forget what lies well behind the read position, in large steps so that the shift is
        // rare (amortised, not once per read). A read past the end of the stream forgets no
        // more than there is.
        let drop = Int(min(frameIndex, bufferEnd) - bufferStart) - history
        if drop > history {
            for c in 0..<format.channels { buffer[c].removeFirst(drop) }
            bufferStart += Int64(drop)
        }
    }

    /// Where reading stops decoding: the stated end, or never.
    private var statedEnd: Int64 { lengthIsStated ? (statedEndFrame ?? Int64.max) : Int64.max }

    /// Whether the container states the stream's length rather than guessing it from the bit
    /// rate (as it must for raw ADTS AAC, say).
    var lengthIsStated: Bool {
        input.pointer.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE
    }

    /// Where the stream ends, in frames from time 0: the container's stated end (an mp4's edit
    /// list hides the AAC encoder's priming and padding), otherwise found by decoding to the end.
    public func exactLength() throws -> Int64 {
        if lengthIsStated, let statedEndFrame { return statedEndFrame }
        try seek(to: 0)
        while !endOfStream {
            try decodeMore()
            let drop = buffer[0].count - 1
            if drop > 0 {
                for c in 0..<format.channels { buffer[c].removeFirst(drop) }
                bufferStart += Int64(drop)
            }
        }
        return bufferEnd
    }

    /// Repositions so that `frameIndex` is decoded next (or is already buffered).
    private func seek(to frameIndex: Int64) throws {
        // Land a little early: seeking goes to a packet at or before the target, then decoding
        // forward finds the exact frame.
        let margin = Int64(format.sampleRate / 2)
        var target = av_rescale_q(frameIndex - margin, AVRational(num: 1, den: Int32(format.sampleRate)), timeBase)
        if target <= 0 || followsOn {
            // Near the start, rewind to the very first packet: the one before pts 0 carries the
            // encoder's priming, which the decoder needs and then drops itself.
            target = -(Int64(1) << 40)
        }
        var result = input.seek(stream: streamIndex, to: target)
        if result < 0 {
            // Some formats cannot seek by time; start again from the top instead.
            target = -(Int64(1) << 40)
            result = LibAVFormat.seekFile(input.pointer, -1, Int64.min, 0, 0, 0)
        }
        LibAVCodec.flushBuffers(decoder.pointer)
        converter = nil
        for c in 0..<format.channels { buffer[c].removeAll(keepingCapacity: true) }
        bufferStart = Int64.min
        endOfStream = false
        discardNextFrame = target > 0
        // Decode until there is a position, and go further back if we landed after the target.
        while bufferStart == Int64.min && !endOfStream { try decodeMore() }
        if bufferStart == Int64.min { bufferStart = frameIndex }
        if bufferStart > frameIndex && frameIndex >= 0 && target > 0 {
            input.seek(stream: streamIndex, to: -(Int64(1) << 40))
            LibAVCodec.flushBuffers(decoder.pointer)
            converter = nil
            discardNextFrame = false
            for c in 0..<format.channels { buffer[c].removeAll(keepingCapacity: true) }
            bufferStart = Int64.min
            while bufferStart == Int64.min && !endOfStream { try decodeMore() }
            if bufferStart == Int64.min { bufferStart = frameIndex }
        }
    }

    /// Decodes at least one more frame into the buffer, or marks the end of the stream.
    private func decodeMore() throws {
        while true {
            switch try receiveFrame() {
            case .ok: return
            case .endOfStream:
                endOfStream = true
                if bufferStart == Int64.min { bufferStart = 0 }
                return
            case .needsInput:
                var fed = false
                while !fed {
                    if try !input.read(into: packet) {
                        _ = decoder.send(nil)
                        fed = true
                        break
                    }
                    guard Int(packet.pointer.pointee.stream_index) == streamIndex else { continue }
                    let sent = decoder.send(packet)
                    if sent < 0 && sent != sp_averror_eagain() && sent != sp_averror_eof() {
                        let at = Double(packet.pointer.pointee.pts) * Double(timeBase.num) / Double(timeBase.den)
                        onWarning?("skipped a damaged audio packet at \(String(format: "%.3f", at)) s of \(path) (\(AVFailure(code: sent, operation: "decoding").message))")
                        continue
                    }
                    fed = true
                }
            }
        }
    }

    private func receiveFrame() throws -> CodecContext.Step {
        let step: CodecContext.Step
        do { step = try decoder.receive(frame) } catch {
            onWarning?("skipped damaged audio in \(path) (\(error.message))")
            return .ok
        }
        guard step == .ok else { return step }
        defer { av_frame_unref(frame.pointer) }
        let f = frame.pointer.pointee
        let count = Int(f.nb_samples)
        guard count > 0 else { return .ok }
        // Every frame is checked: a broadcast's 5.1 film follows stereo adverts, and a frame
        // read as if it had the first one's channels reads past its planes.
        let sampleFormat = AVSampleFormat(f.format)
        // The first frame of a new format starts a PES packet of its own, stamped exactly.
        var slack = tolerance
        if let current = converter, !current.converts(from: f.ch_layout, format: sampleFormat, rate: f.sample_rate) {
            try drainConverter()
            self.converter = nil
            slack = tickSamples
        }
        let converter = try converter ?? SampleConverter(inLayout: f.ch_layout, inFormat: sampleFormat, inRate: f.sample_rate,
                                                         outChannels: Int32(format.channels), outLayout: layout,
                                                         outFormat: AV_SAMPLE_FMT_FLTP, outRate: Int32(format.sampleRate))
        self.converter = converter
        // Where this frame belongs, from its timestamp; continuous audio just follows on. A
        // timestamp is only as exact as its tick (Matroska's millisecond is 48 samples at
        // 48 kHz), so audio within a tick of where it follows on is taken as continuous:
        // moving every frame to its rounded stamp would drop and insert samples all along.
        // A resampler's output starts with the input it held back.
        var position = bufferStart == Int64.min ? 0 : bufferEnd
        let pts = f.best_effort_timestamp
        if pts != sp_av_nopts_value() && !(followsOn && bufferStart != Int64.min) {
            let stamped = av_rescale_q(pts, timeBase, AVRational(num: 1, den: Int32(format.sampleRate))) - converter.delay
            if bufferStart == Int64.min || abs(stamped - position) > slack { position = stamped }
        }
        reserve(converter.outputCapacity(for: count) + 32)
        let converted = try f.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: Int(f.ch_layout.nb_channels)) { data in
            try converter.convert(output: planes, capacity: scratchCapacity, input: data, count: count)
        }
        if discardNextFrame {
            discardNextFrame = false
            return .ok
        }
        append(converted, at: position)
        return .ok
    }

    /// Plays what a resampling converter still holds, before one for another format replaces it.
    private func drainConverter() throws {
        guard let converter, converter.inRate != converter.outRate, bufferStart != Int64.min, !discardNextFrame else { return }
        reserve(converter.outputCapacity(for: 0) + 32)
        append(try converter.convert(output: planes, capacity: scratchCapacity, input: nil, count: 0), at: bufferEnd)
    }

    /// Makes the conversion output hold at least `capacity` frames.
    private func reserve(_ capacity: Int) {
        guard capacity > scratchCapacity else { return }
        scratch.forEach { $0.deallocate() }
        scratch = (0..<format.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
        scratchCapacity = capacity
        for c in 0..<format.channels { planes[c] = UnsafeMutableRawPointer(scratch[c]).assumingMemoryBound(to: UInt8.self) }
    }

    /// Buffers `count` converted frames from the conversion output as starting at `position`.
    private func append(_ count: Int, at position: Int64) {
        if bufferStart == Int64.min { bufferStart = position }
        // A gap in the timestamps is silence; an overlap drops the repeated part.
        let gap = Int(position - bufferEnd)
        for c in 0..<format.channels {
            if gap > 0 { buffer[c].append(contentsOf: repeatElement(0, count: gap)) }
            let skip = max(0, -gap)
            if skip < count {
                buffer[c].append(contentsOf: UnsafeBufferPointer(start: scratch[c] + skip, count: count - skip))
            }
        }
    }
}
