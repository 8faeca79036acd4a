import Foundation
internal import CSDL2

/// The window: the current video frame in its shown shape (sample aspect and rotation applied,
/// see ``DisplayShape``) scaled to fit (letterboxed), and the status overlay.
final class VideoView {
    // Optional so that deinit can destroy them in order: textures before their renderer, the
    // renderer before its window (SDL_DestroyWindow would free the renderer behind our back).
    private var window: SDLObject?
    private var renderer: SDLObject!
    private var texture: SDLObject!
    private var font: SDLObject?
    /// Larger, for subtitles.
    private var subtitleFont: SDLObject?
    private let width: Int32, height: Int32
    private let shape: DisplayShape
    private var hasFrame = false
    private var statusImage: (text: String, image: TextImage)?
    private var helpImages: [TextImage]?
    private var subtitleImages: (text: String, lines: [TextImage])?

    /// Fonts tried for the overlay, from Debian's fonts-dejavu-core.
    static let fontPaths = ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]

    /// A window of `shape`'s shown size (scaled down to fit 960x720), for frames of its stored size.
    init(shape: DisplayShape, title: String) throws(PreviewError) {
        self.shape = shape
        width = Int32(shape.storedWidth)
        height = Int32(shape.storedHeight)
        // The window can be resized; the picture keeps its shown shape inside it.
        let (w, h) = shape.windowSize()
        window = try SDLObject(SDL_CreateWindow(title, sp_sdl_windowpos_centered(), sp_sdl_windowpos_centered(), Int32(w), Int32(h),
                                                SDL_WINDOW_SHOWN.rawValue | SDL_WINDOW_RESIZABLE.rawValue),
                               "open a window", destroy: SDL_DestroyWindow)
        let window = self.window!.pointer
        var made = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue)
        if made == nil { made = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) }
        renderer = try SDLObject(made, "create a renderer for the window", destroy: SDL_DestroyRenderer)
        texture = try SDLObject(SDL_CreateTexture(renderer.pointer, SDL_PIXELFORMAT_IYUV.rawValue,
                                                  Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), self.width, self.height),
                                "create a video texture", destroy: SDL_DestroyTexture)
        var opened: OpaquePointer?
        for path in Self.fontPaths where opened == nil && FileManager.default.fileExists(atPath: path) {
            opened = TTF_OpenFont(path, 18)
        }
        // Without a font the overlay is left out; the title still shows the status.
        font = try? SDLObject(opened, "open a font", destroy: TTF_CloseFont)
        var large: OpaquePointer?
        for path in Self.fontPaths.reversed() where large == nil && FileManager.default.fileExists(atPath: path) {
            large = TTF_OpenFont(path, 24)
        }
        subtitleFont = try? SDLObject(large, "open a font", destroy: TTF_CloseFont)
    }

    deinit {
        statusImage = nil
        helpImages = nil
        subtitleImages = nil
        texture = nil
        renderer = nil
        window = nil
        font = nil
        subtitleFont = nil
    }

    func setTitle(_ title: String) { SDL_SetWindowTitle(window?.pointer, title) }

    func update(planes: [UnsafePointer<UInt8>], linesizes: [Int]) {
        SDL_UpdateYUVTexture(texture.pointer, nil, planes[0], Int32(linesizes[0]), planes[1], Int32(linesizes[1]),
                             planes[2], Int32(linesizes[2]))
        hasFrame = true
    }

    /// No media here (a gap, or an audio-only movie): black.
    func clearFrame() { hasFrame = false }

    /// Draws the frame, `subtitle` (lines centred above the status band), the status and the
    /// key list, when given.
    func present(status: String, subtitle: String? = nil, help: [(keys: String, action: String)]?) {
        let r = renderer.pointer
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255)
        SDL_RenderClear(r)
        var outW: Int32 = 0, outH: Int32 = 0
        SDL_GetRendererOutputSize(r, &outW, &outH)
        if hasFrame {
            // Drawn turned about its centre: for 90° and 270° the rectangle is the shown box on its side.
            let rect = shape.targetRect(outputWidth: Int(outW), outputHeight: Int(outH))
            var target = SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
            if shape.quarterTurns == 0 {
                SDL_RenderCopy(r, texture.pointer, nil, &target)
            } else {
                SDL_RenderCopyEx(r, texture.pointer, nil, &target, shape.angle, nil, SDL_FLIP_NONE)
            }
        }
        SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND)
        let statusHeight = textImage(status, cached: &statusImage).map { $0.height + 12 } ?? 0
        if let subtitle, let lines = subtitleLines(subtitle) {
            // Bottom up, each line on a dark box of its own, as TV subtitles are.
            var bottom = outH - statusHeight - 8
            for line in lines.reversed() {
                var box = SDL_Rect(x: (outW - line.width) / 2 - 6, y: bottom - line.height - 2, w: line.width + 12, h: line.height + 4)
                SDL_SetRenderDrawColor(r, 0, 0, 0, 160)
                SDL_RenderFillRect(r, &box)
                var at = SDL_Rect(x: (outW - line.width) / 2, y: bottom - line.height, w: line.width, h: line.height)
                SDL_RenderCopy(r, line.texture.pointer, nil, &at)
                bottom -= line.height + 4
            }
        }
        if let line = textImage(status, cached: &statusImage) {
            var box = SDL_Rect(x: 0, y: outH - line.height - 12, w: outW, h: line.height + 12)
            SDL_SetRenderDrawColor(r, 0, 0, 0, 180)
            SDL_RenderFillRect(r, &box)
            var at = SDL_Rect(x: 10, y: outH - line.height - 6, w: line.width, h: line.height)
            SDL_RenderCopy(r, line.texture.pointer, nil, &at)
        }
        if let help, let lines = helpLines(help) {
            let lineHeight = (lines.first?.height ?? 20) + 2
            var box = SDL_Rect(x: 20, y: 20, w: (lines.map(\.width).max() ?? 0) + 20, h: lineHeight * Int32(lines.count) + 16)
            SDL_SetRenderDrawColor(r, 0, 0, 0, 200)
            SDL_RenderFillRect(r, &box)
            for (i, line) in lines.enumerated() {
                var at = SDL_Rect(x: 30, y: 28 + lineHeight * Int32(i), w: line.width, h: line.height)
                SDL_RenderCopy(r, line.texture.pointer, nil, &at)
            }
        }
        SDL_RenderPresent(r)
    }

    private func helpLines(_ help: [(keys: String, action: String)]) -> [TextImage]? {
        if helpImages == nil {
            let width = help.map(\.keys.count).max() ?? 0
            helpImages = help.compactMap { entry in
                render(entry.keys.padding(toLength: width + 2, withPad: " ", startingAt: 0) + entry.action)
            }
        }
        return helpImages
    }

    private func subtitleLines(_ text: String) -> [TextImage]? {
        if subtitleImages?.text != text {
            let lines = text.split(separator: "\n").compactMap { render(String($0), font: subtitleFont ?? font) }
            subtitleImages = (text, lines)
        }
        return subtitleImages?.lines.isEmpty == false ? subtitleImages?.lines : nil
    }

    private func textImage(_ text: String, cached: inout (text: String, image: TextImage)?) -> TextImage? {
        if let cached, cached.text == text { return cached.image }
        guard let image = render(text) else { return nil }
        cached = (text, image)
        return image
    }

    private func render(_ text: String, font: SDLObject? = nil) -> TextImage? {
        guard let font = font ?? self.font, !text.isEmpty else { return nil }
        guard let surface = TTF_RenderUTF8_Blended(font.pointer, text, SDL_Color(r: 255, g: 255, b: 255, a: 255)) else { return nil }
        defer { SDL_FreeSurface(surface) }
        guard let texture = try? SDLObject(SDL_CreateTextureFromSurface(renderer.pointer, surface), "draw text",
                                           destroy: SDL_DestroyTexture) else { return nil }
        return TextImage(texture: texture, width: surface.pointee.w, height: surface.pointee.h)
    }
}
