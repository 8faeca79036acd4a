internal import CFFmpeg

/// A movie's start timecode (a camera's or a broadcast's `10:00:00:00`, which libavformat reads
/// from a QuickTime `tmcd` track into the video stream's `timecode` metadata), moved to the
/// frame an export starts with: a timeline that starts 2 s into a movie reading 10:00:00:00 at
/// 25 fps starts at 10:00:02:00. mov and mp4 write it as a `tmcd` track of their own, Matroska
/// as the video's TIMECODE tag.
enum Timecode {
    /// `start` (at `sourceRate`) plus `offset` seconds, counted at `rate` (drop-frame when the
    /// source's is and `rate` is an NTSC rate); nil when either rate or `start` is not a timecode.
    static func retimed(_ start: String, sourceRate: AVRational, offset: Double, rate: AVRational) -> String? {
        guard sourceRate.num > 0, sourceRate.den > 0, rate.num > 0, rate.den > 0 else { return nil }
        var source = AVTimecode()
        guard av_timecode_init_from_string(&source, sourceRate, start, nil) >= 0 else { return nil }
        let seconds = Double(source.start) * Double(sourceRate.den) / Double(sourceRate.num) + max(0, offset)
        let frames = Int32((seconds * Double(rate.num) / Double(rate.den)).rounded())
        var target = AVTimecode()
        // Drop-frame counting exists for the NTSC rates (30000/1001, 60000/1001), not 30 or 60.
        let drop = rate.den != 1 ? Int32(source.flags) & Int32(AV_TIMECODE_FLAG_DROPFRAME.rawValue) : 0
        if av_timecode_init(&target, rate, drop, frames, nil) < 0 {
            guard av_timecode_init(&target, rate, 0, frames, nil) >= 0 else { return nil }
        }
        var buffer = [CChar](repeating: 0, count: Int(AV_TIMECODE_STR_SIZE))
        av_timecode_make_string(&target, &buffer, 0)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Sets `output`'s timecode to the source's moved to `offset` seconds into the source, at
    /// the output's frame rate (which mov and mp4 need to write the `tmcd` track), and returns
    /// it; removes it when it cannot be worked out, rather than state a wrong one. The source's
    /// timecode is its video stream's (libavformat's reading of a `tmcd` track, or a stream
    /// key), else the movie's global `timecode` key (as cameras and FFmpeg write it). Lookups
    /// ignore case, so Matroska's `TIMECODE` tag, on the track or the segment, is read alike.
    @discardableResult
    static func carry(from input: UnsafeMutablePointer<AVStream>, movie: UnsafeMutablePointer<AVFormatContext>,
                      to output: UnsafeMutablePointer<AVStream>, offset: Double) -> String? {
        guard let entry = av_dict_get(input.pointee.metadata, "timecode", nil, 0) ?? av_dict_get(movie.pointee.metadata, "timecode", nil, 0) else {
            return nil
        }
        if output.pointee.avg_frame_rate.num <= 0 { output.pointee.avg_frame_rate = input.pointee.avg_frame_rate }
        let rate = output.pointee.avg_frame_rate.num > 0 ? output.pointee.avg_frame_rate : input.pointee.r_frame_rate
        let made = retimed(String(cString: entry.pointee.value), sourceRate: input.pointee.avg_frame_rate.num > 0 ? input.pointee.avg_frame_rate : input.pointee.r_frame_rate,
                           offset: offset, rate: rate)
        av_dict_set(&output.pointee.metadata, "timecode", made, 0)
        return made
    }

    /// The output's global `timecode` key, which the mov muxer writes over the video stream's:
    /// the retimed one where the source had such a key, never a stale copy of the source's.
    static func replaceGlobal(in metadata: inout OpaquePointer?, with retimed: String?) {
        guard av_dict_get(metadata, "timecode", nil, 0) != nil else { return }
        av_dict_set(&metadata, "timecode", retimed, 0)
    }
}
