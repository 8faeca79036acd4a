/// A key the player understands, whether it came from the window or the terminal.
public enum PreviewKey: Sendable, Hashable {
    case playPause, slower, faster, pitchUp, pitchDown, chipmunk, toggleStretch
    case stepBack, stepForward, seekBack, seekForward, markStart, markEnd, apply, undo, help, quit
    case nextAudioTrack, subtitles, playBackwards, steady
}

/// The key list (and the mouse's part), as `--help` and the `h` overlay show it.
public let previewKeyHelp: [(keys: String, action: String)] = [
    ("space", "play / pause"),
    ("← / →", "rate down / up the ladder 1/32 … 3/4, 1, 1.25, 1.5, 2 … 32"),
    ("↑ / ↓", "pitch ±1 semitone"),
    ("c", "chipmunk: toggle varispeed"),
    ("a", "toggle spectral / timeDomain"),
    (", / .", "step one frame back / forward (paused)"),
    ("j / l", "seek −5 s / +5 s"),
    ("J", "play backwards from here (space pauses, then plays forwards)"),
    ("[ / ]", "mark the edit range's start / end"),
    ("Enter", "scale the marked range to the current rate; save"),
    ("u", "undo the last edit; save"),
    ("t", "next audio track (the overlay names it)"),
    ("s", "subtitles on / off"),
    ("v", "steadied / as filmed (when stabilizing)"),
    ("h", "show / hide this list"),
    ("click / drag", "on the timeline strip: seek there"),
    ("shift-drag", "on the timeline strip: mark that range (then a rate and Enter)"),
    ("wheel", "step frames back / forward (pauses)"),
    ("q / Esc", "quit"),
]
