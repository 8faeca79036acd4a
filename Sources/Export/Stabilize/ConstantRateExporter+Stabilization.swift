import Foundation
import Composition
internal import CFFmpeg
import Media

extension ConstantRateExporter {
    /// The source frames the export decodes: those `plan` shows, or when it is steadied every
    /// one (vidstabtransform takes every picture in order, see ``StabilizedPictures``).
    func needed(_ plan: FramePlan, pictures: PictureTimes, frameCount: Int) -> [Bool] {
        options.stabilization == nil ? pictures.framesNeeded(plan.needed, frameCount: frameCount) : [Bool](repeating: true, count: frameCount)
    }

    /// `source`, steadied when the options ask for it, and how the summary says it.
    func steadied(_ source: any PictureSource, session: ExportSession, input: InputFormatContext, scan: VideoScan, pictures: PictureTimes,
                  fieldOrder: String?, progress: @escaping (Double) throws -> Void,
                  warning: (Notice) -> Void) throws -> (any PictureSource, String?) {
        guard let stabilization = options.stabilization else { return (source, nil) }
        let stream = session.videoStream.index
        let steadied = try Self.stabilized(source, stabilization, movie: session.movie, inputs: [session.movie] + self.source.protectedInputs,
                                           stream: stream, scan: scan, pictures: pictures, fieldOrder: fieldOrder,
                                           name: session.movieName, progress: progress)
        if SourceAlpha.depth(of: input.stream(stream)) > 8 {
            warning(Notice("libvidstab steadies 8-bit pictures, so \(session.movieName) is steadied at 8 bits"))
        }
        return (steadied.source, steadied.said)
    }

    /// The source's pictures steadied as `stabilization` asks, and how the summary says it. The
    /// analysis, when it is not kept yet, reads every picture once with a decoder of its own
    /// (deinterlacing fields the way the export does), before the export decodes any.
    static func stabilized(_ source: any PictureSource, _ stabilization: Stabilization, movie: URL, inputs: [URL],
                           stream: Int, scan: VideoScan, pictures: PictureTimes, fieldOrder: String?, name: String,
                           progress: @escaping (Double) throws -> Void) throws -> (source: StabilizedPictures, said: String) {
        let count = pictures.count
        let (file, reused, redone) = try StabilizationAnalysis.prepare(
            stabilization, stream: stream, count: count, inputs: inputs,
            pictures: { [lazy = LazyReader(movie: movie, stream: stream, scan: scan, fields: fieldOrder != nil, name: name)] i in
                let reader = try lazy.reader()
                let picture = try reader.picture(i)
                reader.release(behind: i)
                return picture
            },
            release: { _ in },
            progress: { try progress(0) })
        let steadied = StabilizedPictures(source: source, stabilization: stabilization, analysis: file, count: count)
        return (steadied, stabilization.said(reused: reused, redone: redone))
    }

    /// A decoder of every frame of the movie, opened on first use (not at all when the
    /// analysis is kept).
    final class LazyReader {
        let movie: URL, stream: Int, scan: VideoScan, fields: Bool, name: String
        private var made: (any PictureSource)?

        init(movie: URL, stream: Int, scan: VideoScan, fields: Bool, name: String) {
            (self.movie, self.stream, self.scan, self.fields, self.name) = (movie, stream, scan, fields, name)
        }

        func reader() throws -> any PictureSource {
            if let made { return made }
            let decoder = try FrameDecoder(input: InputFormatContext(path: movie.path), stream: stream, scan: scan,
                                           needed: [Bool](repeating: true, count: scan.frameCount), name: name, warning: { _ in })
            let source: any PictureSource = try fields ? Deinterlacer(decoder: decoder, frameCount: scan.frameCount) : decoder
            made = source
            return source
        }
    }
}
