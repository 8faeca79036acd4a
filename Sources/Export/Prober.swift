import Foundation
public import Composition
internal import CFFmpeg

/// Reads a movie's facts through libavformat: the container, and for every stream its codec,
/// geometry, rates, colour, rotation, frame count and exact length.
///
/// The frame count, the exact length and whether the frame rate is constant come from scanning
/// the packets (no decoding), so they are measured, not taken from headers that may be wrong.
public enum Prober {
    /// Probes the file at `url`.
    public static func probe(_ url: URL) throws(ExportError) -> MediaInfo {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "no such file")
        }
        // The file a symbolic link leads to, not the link.
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path))?[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw .notMedia(path: path, reason: "the file is empty") }
        let input = try InputFormatContext(path: path)
        var streams = (0..<input.streamCount).map { describe(input.stream($0)) }
        try scanPackets(input, into: &streams)

        let context = input.pointer.pointee
        let format = context.iformat.pointee
        let duration = context.duration == sp_av_nopts_value() || context.duration <= 0
            ? nil : Time(value: context.duration, timescale: Int32(sp_av_time_base()))
        var info = MediaInfo(
            container: String(cString: format.name),
            containerLongName: format.long_name.map { String(cString: $0) },
            duration: duration,
            bitRate: context.bit_rate > 0 ? context.bit_rate : nil,
            fileSize: size,
            streams: streams)
        info.fullFrameRatePlaybackIntent = metadata(context.metadata, MediaInfo.fullFrameRatePlaybackIntentKey)
        var apple: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(context.metadata, "com.apple.quicktime.", entry, AV_DICT_IGNORE_SUFFIX) {
            apple[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        info.quickTimeMetadata = apple.isEmpty ? nil : apple
        return info
    }

    private static func describe(_ stream: StreamView) -> StreamInfo {
        let st = stream.pointer.pointee
        let par = stream.parameters.pointee
        let kind: StreamInfo.Kind = switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
        var info = StreamInfo(
            index: stream.index, kind: kind,
            codec: String(cString: avcodec_get_name(par.codec_id)),
            timeBase: rational(st.time_base) ?? .one)
        info.codecLongName = avcodec_descriptor_get(par.codec_id).map { String(cString: $0.pointee.long_name) }
        info.profile = avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) }
        if st.start_time != sp_av_nopts_value() { info.startTime = time(st.start_time, st.time_base) }
        if st.duration != sp_av_nopts_value() && st.duration > 0 { info.duration = time(st.duration, st.time_base) }
        info.bitRate = par.bit_rate > 0 ? par.bit_rate : nil
        info.language = metadata(st.metadata, "language")
        info.handlerName = metadata(st.metadata, "handler_name")
        switch kind {
        case .video:
            info.width = Int(par.width)
            info.height = Int(par.height)
            info.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(par.format)).map { String(cString: $0) }
            info.sampleAspectRatio = rational(par.sample_aspect_ratio)
            info.averageFrameRate = rational(st.avg_frame_rate)
            info.realFrameRate = rational(st.r_frame_rate)
            info.isAttachedPicture = st.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
            info.rotation = rotation(stream.pointer)
            info.colorPrimaries = name(av_color_primaries_name(par.color_primaries))
            info.colorTransfer = name(av_color_transfer_name(par.color_trc))
            info.colorSpace = name(av_color_space_name(par.color_space))
            info.colorRange = name(av_color_range_name(par.color_range))
            switch par.field_order {
            case AV_FIELD_TT, AV_FIELD_TB: info.fieldOrder = "topFirst"
            case AV_FIELD_BB, AV_FIELD_BT: info.fieldOrder = "bottomFirst"
            default: break
            }
        case .audio:
            info.sampleRate = Int(par.sample_rate)
            info.channels = Int(par.ch_layout.nb_channels)
            var layout = par.ch_layout
            var buffer = [CChar](repeating: 0, count: 128)
            // An unspecified order ("2 channels") names no layout; the count says it all.
            if layout.order != AV_CHANNEL_ORDER_UNSPEC, av_channel_layout_describe(&layout, &buffer, buffer.count) >= 0 {
                info.channelLayout = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
            info.sampleFormat = av_get_sample_fmt_name(AVSampleFormat(par.format)).map { String(cString: $0) }
        default:
            break
        }
        return info
    }

    /// The samples a packet's skip-samples side data drops at its start and at its end.
    static func trimmedSamples(_ p: AVPacket) -> (start: Int64, end: Int64) {
        guard let list = p.side_data else { return (0, 0) }
        for i in 0..<Int(p.side_data_elems) where list[i].type == AV_PKT_DATA_SKIP_SAMPLES && list[i].size >= 10 {
            guard let d = list[i].data else { continue }
            func le32(_ o: Int) -> Int64 { Int64(d[o]) | Int64(d[o + 1]) << 8 | Int64(d[o + 2]) << 16 | Int64(d[o + 3]) << 24 }
            return (le32(0), le32(4))
        }
        return (0, 0)
    }

    /// Counts frames and measures exact lengths from packet timestamps.
    private static func scanPackets(_ input: InputFormatContext, into streams: inout [StreamInfo]) throws(ExportError) {
        struct Tally {
            var count = 0
            var first: Int64?
            var end: Int64?
            var presentationTimes: [Int64] = []
            /// Audio: the first packet's samples dropped at its start, and the last packet's
            /// time, the samples it decodes to and those dropped at its end (gapless MP3, Ogg Opus).
            var skipped: Int64 = 0
            var last: (pts: Int64, samples: Int64?, discarded: Int64)?
            /// Audio: its frames' formats; video: its pictures' sizes.
            var formats: AudioFormatScan?
            var sizes: PictureSizeScan?
        }
        var tallies = [Tally](repeating: Tally(), count: streams.count)
        for i in streams.indices where streams[i].kind == .video && !streams[i].isAttachedPicture {
            tallies[i].sizes = PictureSizeScan(input, stream: i)
        }
        for i in streams.indices where streams[i].kind == .audio && AudioFormatScan.mayChange(input) {
            tallies[i].formats = AudioFormatScan(stream: input.stream(i).pointer, origin: input.pointer.pointee.start_time,
                                                 raw: AudioFormatScan.isRaw(input))
        }
        // A packet without a presentation time (AVI's H.264 has only decode times) is shown
        // when it is decoded, unless the codec reorders frames (B-frames): then nothing says when.
        let reorders = (0..<streams.count).map { input.stream($0).parameters.pointee.video_delay > 0 }
        var unplaced = [Int](repeating: 0, count: streams.count)
        var clock = ClockRestart(input)
        let packet = try Packet()
        while true {
            let more: Bool
            do { more = try input.read(into: packet) } catch {
                // A damaged tail ends the scan; what was read so far is still true.
                break
            }
            guard more else { break }
            let p = packet.pointer.pointee
            let index = Int(p.stream_index)
            guard index < tallies.count else { continue }
            clock.add(p)
            let pts = p.pts != sp_av_nopts_value() || reorders[index] ? p.pts : p.dts
            guard pts != sp_av_nopts_value() else {
                unplaced[index] += 1
                continue
            }
            // Video an edit list hides (a trim without re-encoding) is never shown.
            if streams[index].kind == .video && p.flags & AV_PKT_FLAG_DISCARD != 0 { continue }
            if streams[index].kind == .audio {
                tallies[index].formats?.add(p)
                let trim = Self.trimmedSamples(p)
                if tallies[index].first.map({ pts < $0 }) ?? true { tallies[index].skipped = trim.start }
                if tallies[index].last.map({ pts >= $0.pts }) ?? true {
                    let parameters = input.stream(index).parameters.pointee
                    let samples = parameters.codec_id == AV_CODEC_ID_OPUS
                        ? p.data.flatMap { OpusPacket.samples(UnsafeBufferPointer(start: $0, count: Int(p.size))) }.map(Int64.init)
                        : parameters.frame_size > 0 ? Int64(parameters.frame_size) : nil
                    tallies[index].last = (pts, samples, trim.end)
                }
            }
            tallies[index].count += 1
            tallies[index].first = min(tallies[index].first ?? pts, pts)
            tallies[index].end = max(tallies[index].end ?? Int64.min, pts + max(p.duration, 0))
            if streams[index].kind == .video {
                tallies[index].presentationTimes.append(pts)
                tallies[index].sizes?.add(p)
            }
        }
        if let refusal = clock.failure(path: input.path) { throw refusal }
        if let video = streams.firstIndex(where: { $0.kind == .video && !$0.isAttachedPicture }), tallies[video].count == 0, unplaced[video] > 0 {
            let codec = streams[video].codec
            throw .notMedia(path: input.path, reason: "its \(codec) video reorders its frames (B-frames) but the file stores only the order they are decoded in, not when each is shown (as AVI does), so slowpoke cannot place them; convert it first, for example: ffmpeg -i \((input.path as NSString).lastPathComponent) -c:v libx264 -crf 18 -c:a copy converted.mkv")
        }
        for index in streams.indices {
            let tally = tallies[index]
            let timeBase = input.stream(index).pointer.pointee.time_base
            guard let first = tally.first, let end = tally.end else { continue }
            switch streams[index].kind {
            case .video:
                streams[index].frameCount = tally.count
                streams[index].sizeChanges = tally.sizes?.changes
                let times = tally.presentationTimes.sorted()
                let steps = zip(times.dropFirst(), times).map { $0 - $1 }
                if let shortest = steps.min(), let longest = steps.max() {
                    streams[index].frameRateMode = longest - shortest <= 1 ? .constant : .variable
                }
                // A last packet without a duration ends where it starts; the stream's stated
                // end (variable-rate files) or the frame interval before it then says how long
                // it is shown, so the movie's video ends where its last frame ends.
                var videoEnd = end
                if let last = times.last, end <= last {
                    videoEnd = last + (steps.last ?? 0)
                }
                let st = input.stream(index).pointer.pointee
                if st.duration != sp_av_nopts_value() && st.duration > 0 && st.start_time != sp_av_nopts_value() {
                    videoEnd = max(videoEnd, st.start_time + st.duration)
                }
                streams[index].presentationDuration = time(videoEnd - first, timeBase)
            case .audio:
                // The container's stated duration excludes encoder priming that an edit list
                // hides; fall back to the packet span when there is none.
                streams[index].frameCount = tally.count
                streams[index].formatChanges = tally.formats?.changes
                if let first = tally.formats?.changes?.first {
                    // The header states whichever format libavformat decoded while probing.
                    streams[index].sampleRate = first.sampleRate
                    streams[index].channels = first.channels
                    streams[index].channelLayout = first.channelLayout
                }
                streams[index].presentationDuration = streams[index].duration ?? time(end - max(first, 0), timeBase)
                // A stream whose last packet drops its end (the encoder's padding) lasts from its
                // first kept sample to its last, which its stated duration overstates (MP3 with a
                // LAME header: 8.046 s for 8 s of sound; Ogg Opus: its pre-skip).
                let rate = Int64(input.stream(index).parameters.pointee.sample_rate)
                if let last = tally.last, last.discarded > 0, let samples = last.samples, rate > 0 {
                    let toTicks = { (n: Int64) in av_rescale_q(n, AVRational(num: 1, den: Int32(rate)), timeBase) }
                    let kept = last.pts + toTicks(samples - last.discarded) - (first + toTicks(tally.skipped))
                    if kept > 0 { streams[index].presentationDuration = time(kept, timeBase) }
                }
            default:
                break
            }
        }
    }

    private static func rotation(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            return nil
        }
        let counterClockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterClockwise.isFinite else { return nil }
        var clockwise = -counterClockwise
        if clockwise < 0 { clockwise += 360 }
        return clockwise == 360 ? 0 : clockwise
    }

    private static func rational(_ r: AVRational) -> Rational? {
        guard r.num != 0, r.den != 0 else { return nil }
        return try? Rational(Int64(r.num), Int64(r.den))
    }

    private static func time(_ ticks: Int64, _ base: AVRational) -> Time? {
        guard base.num > 0, base.den > 0 else { return nil }
        return try? Time(value: ticks, timescale: 1).multiplied(by: Rational(Int64(base.num), Int64(base.den)))
    }

    private static func metadata(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0) else { return nil }
        let value = String(cString: entry.pointee.value)
        return value.isEmpty ? nil : value
    }

    private static func name(_ c: UnsafePointer<CChar>?) -> String? {
        guard let c else { return nil }
        let value = String(cString: c)
        return value == "unknown" || value == "unspecified" ? nil : value
    }
}
