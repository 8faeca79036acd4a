import ArgumentParser
import Composition
import Project
import Foundation

/// Applies one edit to the document and reports the new timeline length.
func applyEdit(_ options: DocumentOptions, note: (_ before: Composition, _ after: Composition) -> String? = { _, _ in nil },
               _ makeEdit: (Composition) throws(CompositionError) -> Edit) throws {
    let url = try DocumentLocator.locate(options.document)
    let (edit, duration, said) = try DocumentStore.modify(url) { (document: inout ProjectDocument) throws(ProjectError) in
        let before = document.timeline
        let edit = try ProjectError.editing { () throws(CompositionError) in try makeEdit(before) }
        try document.apply(edit)
        return (edit, document.timeline.duration, note(before, document.timeline))
    }
    print("\(edit.summary); the timeline is now \(duration.shown) s\(said.map { "; \($0)" } ?? "")")
}

/// One edit per range given (resolved on the timeline before the edit), as one edit: the
/// ranges of `scale --range 1-2 --range 5-6` are one line in the history and one undo.
func rangeEdits(_ ranges: [RangeExpression], on timeline: Composition,
                _ make: (TimeRange) throws(CompositionError) -> Edit) throws(CompositionError) -> Edit {
    var edits: [Edit] = []
    for range in ranges { edits.append(try make(try range.resolved(timelineEnd: timeline.duration))) }
    return try Edit.grouped(edits)
}

/// What scales over ranges already scaled did: the rates there now (scales multiply). The
/// ranges are on the timeline before the edit; each moves by what the ones before it grew.
func multipliedRates(in scaled: [(range: TimeRange, length: Time)], before: Composition, after: Composition) -> String? {
    var shift = Time.zero
    var said: [String] = []
    for (range, length) in scaled.sorted(by: { $0.range.start < $1.range.start }) {
        guard let moved = try? TimeRange(start: range.start + shift, duration: range.duration),
              let grown = try? (shift + length) - range.duration else { return nil }
        if let note = multipliedRates(in: range, before: before, after: after, newLength: length, at: moved.start), !said.contains(note) {
            said.append(note)
        }
        shift = grown
    }
    return said.isEmpty ? nil : said.joined(separator: "; ")
}

/// What a scale over a range already scaled did: the rates there now (scales multiply).
func multipliedRates(in range: TimeRange, before: Composition, after: Composition, newLength: Time, at start: Time) -> String? {
    guard let track = before.tracks.first,
          track.segments.contains(where: { $0.target.overlaps(range) && $0.rate != nil && $0.rate != .one }),
          let scaled = try? TimeRange(start: start, duration: newLength), let edited = after.tracks.first
    else { return nil }
    var rates: [Rational] = []
    for segment in edited.segments where segment.target.overlaps(scaled) {
        if let rate = segment.rate, !rates.contains(rate) { rates.append(rate) }
    }
    guard let slowest = rates.min(), let fastest = rates.max() else { return nil }
    let span = slowest == fastest ? "\(slowest.shown)x" : "\(slowest.shown)x to \(fastest.shown)x"
    return "now \(span) there: scales multiply; undo to go back"
}
