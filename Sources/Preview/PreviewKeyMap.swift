internal import CSDL2

/// Which SDL key does what in the preview window (the list users see is ``previewKeyHelp``).
extension Player {
    static func key(for sym: SDL_Keycode, shift: Bool = false) -> PreviewKey? {
        if shift && sym == Int32(SDLK_j.rawValue) { return .playBackwards }
        switch sym {
        case Int32(SDLK_SPACE.rawValue): return .playPause
        case Int32(SDLK_LEFT.rawValue): return .slower
        case Int32(SDLK_RIGHT.rawValue): return .faster
        case Int32(SDLK_UP.rawValue): return .pitchUp
        case Int32(SDLK_DOWN.rawValue): return .pitchDown
        case Int32(SDLK_c.rawValue): return .chipmunk
        case Int32(SDLK_a.rawValue): return .toggleStretch
        case Int32(SDLK_COMMA.rawValue): return .stepBack
        case Int32(SDLK_PERIOD.rawValue): return .stepForward
        case Int32(SDLK_j.rawValue): return .seekBack
        case Int32(SDLK_l.rawValue): return .seekForward
        case Int32(SDLK_LEFTBRACKET.rawValue): return .markStart
        case Int32(SDLK_RIGHTBRACKET.rawValue): return .markEnd
        case Int32(SDLK_RETURN.rawValue), Int32(SDLK_KP_ENTER.rawValue): return .apply
        case Int32(SDLK_u.rawValue): return .undo
        case Int32(SDLK_h.rawValue): return .help
        case Int32(SDLK_t.rawValue): return .nextAudioTrack
        case Int32(SDLK_s.rawValue): return .subtitles
        case Int32(SDLK_v.rawValue): return .steady
        case Int32(SDLK_q.rawValue), Int32(SDLK_ESCAPE.rawValue): return .quit
        default: return nil
        }
    }
}
