import Foundation
import Composition
internal import CFFmpeg
import Media

/// A movie's chapters, retimed through the timeline: a chapter starting in a removed range
/// starts where the cut is, one in a scaled range stretches with it, and one wholly removed is
/// left out (and named). Titles and other metadata are kept. In a timeline that plays a range
/// backwards, a chapter is written once per stretch where it plays (each with its title), so
/// that chapters follow the order they play in and never overlap.
struct ChapterList {
    struct Chapter {
        let id: Int64
        /// Milliseconds of the output.
        let start: Int64
        let end: Int64
        let title: String?
        let metadata: MetadataDictionary
    }
    let chapters: [Chapter]
    /// Titles (or numbers) of chapters the timeline removes entirely.
    let removed: [String]

    /// The chapters of `input` for a timeline of `segments` whose source time 0 is `origin`.
    init(_ input: InputFormatContext, segments: [CompositionTrackSegment], origin: Time, display: String) throws {
        var kept: [Chapter] = []
        var removed: [String] = []
        let reversed = segments.contains { $0.isReversed }
        // Ids for the further stretches of a chapter: after every id the movie uses.
        var spareID = (0..<Int(input.pointer.pointee.nb_chapters)).compactMap { input.pointer.pointee.chapters[$0]?.pointee.id }.max() ?? 0
        for i in 0..<Int(input.pointer.pointee.nb_chapters) {
            guard let chapter = input.pointer.pointee.chapters[i]?.pointee else { continue }
            let base = chapter.time_base
            func time(_ ticks: Int64) throws -> Time {
                try Time(value: ticks, timescale: 1).multiplied(by: Rational(Int64(base.num), Int64(base.den))) - origin
            }
            let title = av_dict_get(chapter.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) }
            let range = try TimeRange(start: time(chapter.start), end: time(max(chapter.start, chapter.end)))
            let played = SourceMapping.compositionRanges(of: range, in: segments)
            guard let first = played.first, let last = played.last else {
                removed.append(title.map { "\"\($0)\"" } ?? "\(i + 1)")
                continue
            }
            let stretches = reversed ? played : [try TimeRange(start: first.start, end: last.end)]
            for (n, stretch) in stretches.enumerated() {
                if n > 0 { spareID += 1 }
                kept.append(Chapter(id: n == 0 ? chapter.id : spareID, start: try stretch.start.rescaled(to: 1000).value,
                                    end: try stretch.end.rescaled(to: 1000).value, title: title,
                                    metadata: try MetadataDictionary(copying: chapter.metadata, display: display)))
            }
        }
        // A reversed range can play a later chapter first: chapters go in the order they play.
        chapters = kept.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        self.removed = removed
    }

    /// The warning for chapters the timeline removes entirely, naming them; nil when none are.
    func removedWarning(movieName: String) -> String? {
        guard !removed.isEmpty else { return nil }
        let one = removed.count == 1
        return "the timeline removes all of \(movieName)'s chapter\(one ? "" : "s") \(removed.joined(separator: ", ")), so the export leaves \(one ? "it" : "them") out"
    }

    /// Sets the chapters of the output `context`, before its header is written.
    func write(into context: UnsafeMutablePointer<AVFormatContext>) throws(ExportError) {
        guard !chapters.isEmpty else { return }
        // libavformat frees these with the context.
        guard let table = av_mallocz(chapters.count * MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride)?
            .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else {
            throw .libav(AVFailure(code: sp_averror(ENOMEM), operation: "adding chapters"))
        }
        context.pointee.chapters = table
        for chapter in chapters {
            guard let made = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else {
                throw .libav(AVFailure(code: sp_averror(ENOMEM), operation: "adding chapters"))
            }
            made.pointee.id = chapter.id
            made.pointee.time_base = AVRational(num: 1, den: 1000)
            made.pointee.start = chapter.start
            made.pointee.end = chapter.end
            av_dict_copy(&made.pointee.metadata, chapter.metadata.pointer, 0)
            table[Int(context.pointee.nb_chapters)] = made
            context.pointee.nb_chapters += 1
        }
    }
}
