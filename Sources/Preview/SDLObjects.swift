import Foundation
internal import CSDL2

/// The SDL library, initialised for as long as this object lives.
final class SDLSession {
    let video: Bool

    init(video: Bool) throws(PreviewError) {
        self.video = video
        // The libraries load here, on first use, or the preview stops with the reason.
        _ = try SDLLibrary.shared.get()
        try Self.start(video: video)
        if video && TTF_Init() != 0 {
            SDL_Quit()
            throw .sdl(what: "start SDL_ttf", reason: String(cString: SDL_GetError()))
        }
    }

    deinit {
        if video { TTF_Quit() }
        SDL_Quit()
    }

    /// Initialises SDL. SDL turns SIGINT and SIGTERM into a quit event only while they are at
    /// their default action; a caller that handles them itself (the command line does, for exit
    /// status 130) keeps its handlers and tells the player through `run`'s `interrupted`.
    ///
    /// Without a display SDL falls back to a driver that shows nothing: a window nobody sees,
    /// keys that never arrive. That is refused, unless asked for by name (SDL_VIDEODRIVER). A
    /// display that is named but refuses the connection is tried again for about a second
    /// first: an X server that is starting, or resetting as its last client leaves, answers a
    /// moment later (a preview started under a fresh Xvfb while xdotool came and went failed
    /// about one start in forty that way).
    private static func start(video: Bool) throws(PreviewError) {
        let environment = ProcessInfo.processInfo.environment
        let display = environment["DISPLAY"] ?? environment["WAYLAND_DISPLAY"]
        for attempt in 1... {
            guard SDL_Init(sp_sdl_init_flags(video ? 1 : 0)) == 0 else {
                throw .sdl(what: video ? "start SDL video" : "start SDL", reason: String(cString: SDL_GetError()))
            }
            guard video, environment["SDL_VIDEODRIVER"] == nil,
                  let driver = SDL_GetCurrentVideoDriver().map({ String(cString: $0) }), ["offscreen", "dummy"].contains(driver)
            else { return }
            SDL_Quit()
            guard let display, !display.isEmpty, attempt < 6 else { throw .noDisplay(driver: driver, display: display) }
            usleep(200_000)
        }
    }
}

/// An owned SDL window, renderer, texture or font, destroyed on deinit.
final class SDLObject {
    let pointer: OpaquePointer
    private let destroy: (OpaquePointer) -> Void

    init(_ pointer: OpaquePointer?, _ what: String, destroy: @escaping (OpaquePointer) -> Void) throws(PreviewError) {
        guard let pointer else { throw .sdl(what: what, reason: String(cString: SDL_GetError())) }
        self.pointer = pointer
        self.destroy = destroy
    }

    deinit { destroy(pointer) }
}

/// A texture and its size, made from text.
struct TextImage {
    let texture: SDLObject
    let width: Int32
    let height: Int32
}
