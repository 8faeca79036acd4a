import Composition
import Foundation
import Project

/// The preview's edits: a marked range scaled to the current rate, and undo, each saved to the
/// document at once and played from the same moment of the movie.
extension Player {

    func applyEdit(message: (String) -> Void) throws {
        guard let range = settings.markedRange else {
            message("mark the range's start with [ and its end with ] first")
            return
        }
        guard settings.rate != .one else {
            message("the rate is 1x, so the range would not change; pick a rate with ← and → first")
            return
        }
        let edit: Edit
        do {
            edit = try Edit.scale(range: range, rate: settings.rate)
        } catch {
            return message("the edit was refused: \(error.description)")
        }
        let saved = try save(message: message, refusal: "the edit was refused") { (document: inout ProjectDocument) throws(ProjectError) in
            try document.apply(edit)
            return edit.summary
        }
        guard saved else { return }
        settings.markIn = nil
        settings.markOut = nil
    }

    func undo(message: (String) -> Void) throws {
        try save(message: message, refusal: nil) { (document: inout ProjectDocument) throws(ProjectError) in
            "undid: " + (try document.undo()).summary
        }
    }

    /// Changes the document on disk (locked, atomically replaced), then plays the new timeline
    /// from the same moment of the movie.
    /// A change the document refuses (its `ProjectError`: nothing was written) is said (after
    /// `refusal`), and the preview goes on; returns whether it was saved.
    @discardableResult
    private func save(message: (String) -> Void, refusal: String?,
                      _ change: (inout ProjectDocument) throws(ProjectError) -> String) throws -> Bool {
        let expected = composition
        let note: String, updated: ProjectDocument
        do {
            (note, updated) = try DocumentStore.modify(options.document) { (document: inout ProjectDocument) throws(ProjectError) in
                guard document.timeline == expected else {
                    throw ProjectError.documentChanged("the document changed on disk while previewing; quit and start the preview again")
                }
                let note = try change(&document)
                return (note, document)
            }
        } catch {
            message(refusal.map { "\($0): \(error.description)" } ?? error.description)
            return false
        }
        let before = currentTime
        let anchorTrack = composition.tracks(withMediaType: .video).first ?? composition.tracks.first
        let sourceTime = (try anchorTrack?.presentation(at: before))??.sourceTime
        document = updated
        composition = updated.timeline
        var after = min(before, composition.duration)
        if let sourceTime, let track = composition.tracks.first(where: { $0.trackID == anchorTrack?.trackID }) {
            let times = try track.compositionTimes(forSourceTime: sourceTime)
            if let nearest = times.min(by: { abs($0.seconds - before.seconds) < abs($1.seconds - before.seconds) }) { after = nearest }
        }
        if let feeder, let track = composition.tracks(withMediaType: .audio).first {
            let audio = try CompositionAudio(movie: movie, track: track, varispeed: settings.algorithm == .varispeed,
                                             stream: audioChoice.stream)
            try feeder.seek(to: after.seconds * Double(feeder.format.sampleRate), audio: audio)
            audioIsVarispeed = settings.algorithm == .varispeed
        }
        wallPosition = after.seconds
        wallAnchor = Date()
        // The cues follow the new timeline too.
        if let subtitleStream { readSubtitles(subtitleStream) }
        summary.saved.append(note)
        message("saved: \(note); the timeline is now \(composition.duration.shown) s")
        return true
    }
}
