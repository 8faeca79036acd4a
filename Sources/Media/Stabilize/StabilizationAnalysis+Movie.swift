import Foundation
import Composition
internal import CFFmpeg

extension StabilizationAnalysis {
    /// A movie's kept analysis, ready for ``StabilizationTransform``, and its pictures' times.
    package struct Prepared: Sendable {
        package let file: URL
        /// Whether the analysis was already kept (by an export or an earlier preview).
        package let reused: Bool
        /// Why an analysis that was kept was not used (see ``Stabilization/said(reused:redone:)``).
        package let redone: String?
        /// Source picture i's presentation time, sorted, as ``VideoFrameReader/currentTime``
        /// gives it (the stream's start time is 0).
        package let times: [Time]
        package let width: Int, height: Int
    }

    /// The analysis of `movie`'s video stream `stream` (the document's primary video stream,
    /// the one the export steadies and ``VideoFrameReader/init(url:stream:threads:)`` is given
    /// to play) as `stabilization` asks: the kept one, or made now from every
    /// picture decoded in order, as the export's analysis decodes a progressive movie's, so an
    /// analysis either makes serves the other. `progress` gets the fraction analysed (and may
    /// throw to stop; nothing is then kept). Interlaced video is refused: the export analyses
    /// it field by field, after deinterlacing.
    package static func prepare(_ stabilization: Stabilization, movie: URL, stream: Int,
                                progress: @escaping (Double) throws -> Void) throws -> Prepared {
        let input = try InputFormatContext(path: movie.path)
        let name = movie.lastPathComponent
        guard (0..<input.streamCount).contains(stream),
              input.stream(stream).pointer.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
            throw MediaError.notMedia(path: movie.path, reason: "its stream \(stream) is not a video stream")
        }
        let parameters = input.stream(stream).parameters.pointee
        switch parameters.field_order {
        case AV_FIELD_TT, AV_FIELD_TB, AV_FIELD_BB, AV_FIELD_BT:
            throw MediaError.unsupported("\(name) is interlaced; its stabilization analysis is made field by field, after deinterlacing, by an export")
        default: break
        }
        let scan = try VideoScan(input: input, stream: stream, name: name, keepPackets: false, warning: { _ in })
        let count = scan.frameCount
        guard count > 0 else { throw MediaError.notMedia(path: movie.path, reason: "its video stream has no picture") }
        var decoder: FrameDecoder?
        var done = 0
        let (file, reused, redone) = try prepare(
            stabilization, stream: stream, count: count, inputs: [movie],
            pictures: { i in
                if decoder == nil {
                    decoder = try FrameDecoder(input: input, stream: stream, scan: scan, needed: [Bool](repeating: true, count: count),
                                               name: name, warning: { _ in })
                }
                let frame = try decoder!.frame(i)
                decoder!.release(behind: i)
                done = i + 1
                return frame
            },
            release: { _ in },
            progress: { try progress(Double(done) / Double(count)) })
        if !reused { try progress(1) }
        let timeBase = input.stream(stream).pointer.pointee.time_base
        let start = input.stream(stream).pointer.pointee.start_time
        let origin = start == sp_av_nopts_value() ? 0 : start
        let times = scan.presentationTicks.map { Time(value: ($0 - origin) * Int64(timeBase.num), timescale: timeBase.den) }
        return Prepared(file: file, reused: reused, redone: redone, times: times,
                        width: Int(parameters.width), height: Int(parameters.height))
    }
}
