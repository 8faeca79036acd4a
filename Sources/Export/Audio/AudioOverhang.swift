import Composition

/// Audio that sounds before a movie's first video frame or after its last: the timeline is the
/// video's, so an export leaves it out, and says so (a camera whose sound starts before the
/// picture, an audio track longer than the film).
enum AudioOverhang {
    /// Less than this is rounding and encoder priming, not sound anyone misses.
    static let tolerance = 0.05

    /// What of each audio stream of `media` lies outside its video, in a few words, by stream
    /// index; empty when everything is inside, or when a length is unknown.
    static func notes(_ media: MediaInfo) -> [Int: String] {
        guard let video = media.primaryVideo, let videoStart = video.startTime?.seconds,
              let videoLength = (video.presentationDuration ?? video.duration)?.seconds else { return [:] }
        let videoEnd = videoStart + videoLength
        var notes: [Int: String] = [:]
        for audio in media.streams where audio.isDecodableAudio && media.isInProgram(audio.index) {
            guard let start = audio.startTime?.seconds, let length = (audio.presentationDuration ?? audio.duration)?.seconds else { continue }
            var parts: [String] = []
            if videoStart - start > tolerance { parts.append("its first \(seconds(videoStart - start)), before the first video frame") }
            if start + length - videoEnd > tolerance { parts.append("its last \(seconds(start + length - videoEnd)), after the last video frame") }
            if !parts.isEmpty {
                notes[audio.index] = parts.joined(separator: " and ") + ", are not in the export (the timeline is the video's)"
            }
        }
        return notes
    }

    private static func seconds(_ value: Double) -> String {
        value < 10 ? "\((value * 100).rounded() / 100) s" : "\(Int(value.rounded())) s"
    }
}
