import Foundation
public import Composition
internal import CFFmpeg

/// Reads a movie's facts through libavformat: the container, and for every stream its codec,
/// geometry, rates, colour, rotation, frame count and exact length.
///
/// The frame count, the exact length and whether the frame rate is constant come from scanning
/// the packets (no decoding), so they are measured, not taken from headers that may be wrong.
public enum Prober {
    /// Probes the file at `url`. An mp4 or mov states its packets in its index, read at once;
    /// other containers (transport streams, raw streams) are read to their end, with the
    /// fraction read so far reported to `progress`.
    public static func probe(_ url: URL, progress: ((Double) -> Void)? = nil) throws(MediaError) -> MediaInfo {
        try probe(url, readingIndex: true, progress: progress)
    }

    /// Probes the file at `url`; with `readingIndex`, an mp4's packets come from its index
    /// (``IndexedPackets``), else every packet is read (the tests compare the two).
    static func probe(_ url: URL, readingIndex: Bool, progress: ((Double) -> Void)? = nil) throws(MediaError) -> MediaInfo {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "no such file")
        }
        // The file a symbolic link leads to, not the link.
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path))?[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw .notMedia(path: path, reason: "the file is empty") }
        let input = try InputFormatContext(path: path)
        var streams = (0..<input.streamCount).map { describe(input.stream($0)) }
        try scanPackets(input, into: &streams, readingIndex: readingIndex) { position in
            if let progress, size > 0 { progress(min(1, Double(position) / Double(size))) }
        }

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
        info.programs = Self.programs(context)
        info.program = info.defaultProgram
        info.fullFrameRatePlaybackIntent = metadata(context.metadata, MediaInfo.fullFrameRatePlaybackIntentKey)
        var vendor: [String: String] = [:]
        for prefix in MediaInfo.vendorKeyPrefixes {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let next = av_dict_get(context.metadata, prefix, entry, AV_DICT_IGNORE_SUFFIX) {
                vendor[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
                entry = next
            }
        }
        info.quickTimeMetadata = vendor.isEmpty ? nil : vendor
        if let clock = input.clock {
            // Where the clock starts again, into the movie: from its primary stream's start.
            let primary = (info.primaryVideo ?? info.primaryAudio).map { input.stream($0.index).pointer.pointee }
            let start = primary.map { $0.start_time == sp_av_nopts_value() ? 0 : av_rescale_q($0.start_time, $0.time_base, AVRational(num: 1, den: sp_av_time_base())) } ?? 0
            info.clockRestarts = clock.restarts.map { Time(value: $0.at &- start, timescale: Int32(sp_av_time_base())) }
            // Packets whose timestamp alone jumped (damaged): where their stream's clock stood.
            let damaged = clock.outlierTimes.map { outlier in
                let base = input.stream(outlier.stream).pointer.pointee.time_base
                return Time(value: av_rescale_q(outlier.at, base, AVRational(num: 1, den: sp_av_time_base())) &- start, timescale: Int32(sp_av_time_base()))
            }
            info.damagedTimestamps = damaged.isEmpty ? nil : damaged
        }
        return info.withoutImpossibleNumbers()
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
            codec: String(cString: LibAVCodec.codecName(par.codec_id)),
            timeBase: rational(st.time_base) ?? .one)
        info.codecLongName = LibAVCodec.descriptor(par.codec_id).map { String(cString: $0.pointee.long_name) }
        info.profile = LibAVCodec.profileName(par.codec_id, par.profile).map { String(cString: $0) }
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
    private static func scanPackets(_ input: InputFormatContext, into streams: inout [StreamInfo], readingIndex: Bool,
                                    reached: (Int64) -> Void) throws(MediaError) {
        var tallies = [StreamTally](repeating: StreamTally(), count: streams.count)
        for i in streams.indices where streams[i].kind == .video && !streams[i].isAttachedPicture {
            tallies[i].sizes = PictureSizeScan(input, stream: i)
        }
        for i in streams.indices where streams[i].kind == .audio && AudioFormatScan.mayChange(input) {
            tallies[i].formats = AudioFormatScan(stream: input.stream(i).pointer, origin: input.pointer.pointee.start_time,
                                                 raw: AudioFormatScan.isRaw(input))
        }
        var moved = false, reader = input
        if readingIndex, let indexed = IndexedPackets(input, streams: Array(streams.indices), moved: &moved) {
            // An mp4 or mov whose index states every packet: nothing more to read.
            for (index, stream) in indexed.streams.enumerated() { tallies[index].add(stream, kind: streams[index].kind, parameters: input.stream(index).parameters.pointee) }
            describe(&streams, from: tallies, input)
            return
        }
        if moved { reader = try InputFormatContext(path: input.path) }
        // A packet without a presentation time (AVI's H.264 has only decode times) is shown
        // when it is decoded, unless the codec reorders frames (B-frames): then nothing says when.
        let reorders = (0..<streams.count).map { input.stream($0).parameters.pointee.video_delay > 0 }
        var unplaced = [Int](repeating: 0, count: streams.count)
        var read = 0
        let packet = try Packet()
        while true {
            let more: Bool
            do { more = try reader.read(into: packet) } catch {
                // A damaged tail ends the scan; what was read so far is still true.
                break
            }
            guard more else { break }
            let p = packet.pointer.pointee
            read += 1
            if read % 4096 == 0, p.pos >= 0 { reached(p.pos) }
            let index = Int(p.stream_index)
            guard index < tallies.count else { continue }
            let pts = p.pts != sp_av_nopts_value() || reorders[index] ? p.pts : p.dts
            guard pts != sp_av_nopts_value() else {
                unplaced[index] += 1
                continue
            }
            switch streams[index].kind {
            // Video an edit list hides (a trim without re-encoding) is never shown.
            case .video: if p.flags & AV_PKT_FLAG_DISCARD == 0 { tallies[index].add(video: p, at: pts) }
            case .audio: tallies[index].add(audio: p, at: pts, parameters: input.stream(index).parameters.pointee)
            default: tallies[index].add(p, at: pts)
            }
        }
        if read >= 4096 { reached(.max) }
        if let video = streams.firstIndex(where: { $0.kind == .video && !$0.isAttachedPicture }), tallies[video].count == 0, unplaced[video] > 0 {
            let codec = streams[video].codec
            throw .notMedia(path: input.path, reason: "its \(codec) video reorders its frames (B-frames) but the file stores only the order they are decoded in, not when each is shown (as AVI does), so slowpoke cannot place them; convert it first, for example: ffmpeg -i \((input.path as NSString).lastPathComponent) -c:v libx264 -crf 18 -c:a copy converted.mkv")
        }
        describe(&streams, from: tallies, input)
    }

    /// Each stream's frame count, rate mode and length from its tally.
    private static func describe(_ streams: inout [StreamInfo], from tallies: [StreamTally], _ input: InputFormatContext) {
        for index in streams.indices {
            let stream = input.stream(index).pointer
            switch streams[index].kind {
            case .video: tallies[index].describe(video: &streams[index], stream: stream)
            case .audio: tallies[index].describe(audio: &streams[index], stream: stream)
            default: break
            }
        }
    }

    private static func rotation(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        var size: Int = 0
        guard let data = LibAVFormat.streamGetSideData(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
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

    static func time(_ ticks: Int64, _ base: AVRational) -> Time? {
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

extension Prober {
    /// A transport stream's programs (their ids, service names and streams); nil for fewer than two.
    static func programs(_ context: AVFormatContext) -> [MediaInfo.Program]? {
        guard context.nb_programs > 1, let list = context.programs else { return nil }
        return (0..<Int(context.nb_programs)).compactMap { i in
            guard let program = list[i]?.pointee else { return nil }
            let name = av_dict_get(program.metadata, "service_name", nil, 0).map { String(cString: $0.pointee.value) }
            let streams = (0..<Int(program.nb_stream_indexes)).map { Int(program.stream_index[$0]) }
            return MediaInfo.Program(id: Int(program.id), name: name, streams: streams)
        }
    }
}
