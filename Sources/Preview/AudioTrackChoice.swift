import Media

/// Which of a movie's audio tracks plays: the one marked default (else the first) at the
/// start, and the next on each `t`, round. Plain state, so its rules are tested on their own.
struct AudioTrackChoice: Equatable {
    let tracks: [PlayableStream]
    private(set) var current: Int

    init(tracks: [PlayableStream]) {
        self.tracks = tracks
        current = tracks.firstIndex(where: \.isDefault) ?? 0
    }

    /// The stream number playing, or nil for a movie without audio.
    var stream: Int? { tracks.indices.contains(current) ? tracks[current].index : nil }

    mutating func next() {
        guard !tracks.isEmpty else { return }
        current = (current + 1) % tracks.count
    }

    /// `audio 2/3 fra "Commentary"` for the overlay; nil with fewer than two tracks.
    var label: String? {
        guard tracks.count > 1 else { return nil }
        let track = tracks[current]
        var text = "audio \(current + 1)/\(tracks.count)"
        if let language = track.language { text += " \(language)" }
        if let title = track.title { text += " \"\(title)\"" }
        return text
    }
}
