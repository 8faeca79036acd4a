import Composition
import Foundation
internal import CSDL2

/// The window: the current video frame in its shown shape (sample aspect and rotation applied,
/// see ``DisplayShape``) scaled to fit (letterboxed) above a band for the timeline strip
/// (``TimelineStrip``) and the times at its ends; over the picture's bottom the status, the
/// preview's messages and subtitles, the key list at the top.
final class VideoView {
    // Optional so that deinit can destroy them in order: textures before their renderer, the
    // renderer before its window (SDL_DestroyWindow would free the renderer behind our back).
    private var window: SDLObject?
    private(set) var renderer: SDLObject!
    private var texture: SDLObject!
    /// The overlay's font by point size (``StatusFit/sizes`` and the strip's labels).
    var fonts: [Int: SDLObject] = [:]
    /// Larger, for subtitles.
    private var subtitleFont: SDLObject?
    private let width: Int32, height: Int32
    private let shape: DisplayShape
    private var hasFrame = false
    var statusImage: (key: [String], available: Int32, image: TextImage)?
    var labelImages: [String: TextImage] = [:]
    var messageImages: [String: [TextImage]] = [:]
    private var helpImages: [TextImage]?
    private var subtitleImages: (text: String, lines: [TextImage])?
    /// The strip laid out for the last timeline and width it was drawn for.
    var stripLayout: (segments: [CompositionTrackSegment], width: Int32, strip: TimelineStrip)?
    /// The output's size at the last present: where the strip is, for the mouse.
    private(set) var outputSize: (width: Int, height: Int) = (0, 0)

    /// The strip's bars and the row of times above them, at the bottom of the window.
    static let stripHeight: Int32 = 28
    static let labelHeight: Int32 = 16
    static let bottomPanel = stripHeight + labelHeight
    /// The text sizes: status sizes from ``StatusFit``, the strip's labels and messages.
    static let labelSize = 11, messageSize = 15

    /// Fonts tried for the overlay, from Debian's fonts-dejavu-core.
    static let fontPaths = ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]

    /// A window of `shape`'s shown size (see ``DisplayShape/windowSize(maxWidth:maxHeight:minWidth:)``)
    /// and the strip's band below it, for frames of its stored size.
    init(shape: DisplayShape, title: String) throws(PreviewError) {
        self.shape = shape
        width = Int32(shape.storedWidth)
        height = Int32(shape.storedHeight)
        // The window can be resized; the picture keeps its shown shape inside it.
        // The strip and its row of times get a band of their own below the picture.
        let (w, h) = shape.windowSize()
        window = try SDLObject(SDL_CreateWindow(title, sp_sdl_windowpos_centered(), sp_sdl_windowpos_centered(), Int32(w),
                                                Int32(h) + Self.bottomPanel,
                                                SDL_WINDOW_SHOWN.rawValue | SDL_WINDOW_RESIZABLE.rawValue),
                               "open a window", destroy: SDL_DestroyWindow)
        let window = self.window!.pointer
        var made = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue)
        if made == nil { made = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) }
        renderer = try SDLObject(made, "create a renderer for the window", destroy: SDL_DestroyRenderer)
        texture = try SDLObject(SDL_CreateTexture(renderer.pointer, SDL_PIXELFORMAT_IYUV.rawValue,
                                                  Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), self.width, self.height),
                                "create a video texture", destroy: SDL_DestroyTexture)
        // Without a font the overlay's text is left out; the title still shows the status.
        for size in Set(StatusFit.sizes + [Self.labelSize, Self.messageSize]) {
            var opened: OpaquePointer?
            for path in Self.fontPaths where opened == nil && FileManager.default.fileExists(atPath: path) {
                opened = TTF_OpenFont(path, Int32(size))
            }
            fonts[size] = try? SDLObject(opened, "open a font", destroy: TTF_CloseFont)
        }
        var large: OpaquePointer?
        for path in Self.fontPaths.reversed() where large == nil && FileManager.default.fileExists(atPath: path) {
            large = TTF_OpenFont(path, 24)
        }
        subtitleFont = try? SDLObject(large, "open a font", destroy: TTF_CloseFont)
    }

    deinit {
        statusImage = nil
        labelImages = [:]
        messageImages = [:]
        helpImages = nil
        subtitleImages = nil
        texture = nil
        renderer = nil
        window = nil
        fonts = [:]
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

    /// What is drawn over the picture.
    struct Overlay {
        /// The status from the whole line to the shortest (``StatusFit`` picks one).
        var status: [String]
        var subtitle: String?
        var help: [(keys: String, action: String)]?
        /// The preview's recent messages, oldest first.
        var messages: [String] = []
        var strip: StripState?
    }

    /// Draws the frame and the overlay; returns the nanoseconds spent drawing the strip.
    func present(_ overlay: Overlay) -> UInt64 {
        let r = renderer.pointer
        SDL_SetRenderDrawColor(r, 0, 0, 0, 255)
        SDL_RenderClear(r)
        var outW: Int32 = 0, outH: Int32 = 0
        SDL_GetRendererOutputSize(r, &outW, &outH)
        outputSize = (Int(outW), Int(outH))
        if hasFrame {
            // Drawn turned about its centre: for 90° and 270° the rectangle is the shown box on its side.
            let rect = shape.targetRect(outputWidth: Int(outW), outputHeight: max(1, Int(outH - Self.bottomPanel)))
            var target = SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
            if shape.quarterTurns == 0 {
                SDL_RenderCopy(r, texture.pointer, nil, &target)
            } else {
                SDL_RenderCopyEx(r, texture.pointer, nil, &target, shape.angle, nil, SDL_FLIP_NONE)
            }
        }
        SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND)
        var stripNanoseconds: UInt64 = 0
        // The status and the rest stand on the picture's bottom edge, above the strip's band.
        let bottom = outH - Self.bottomPanel
        if let strip = overlay.strip {
            // The strip's commands, as issued (the renderer batches them into the present; a
            // flush around them made the GPU's wait for the picture count as the strip's).
            let started = DispatchTime.now().uptimeNanoseconds
            drawStrip(strip, outputWidth: outW, outputHeight: outH)
            stripNanoseconds = DispatchTime.now().uptimeNanoseconds - started
        }
        let status = statusLine(overlay.status, available: outW - 20)
        let statusHeight = status.map { $0.height + 12 } ?? 0
        if let line = status {
            var box = SDL_Rect(x: 0, y: bottom - line.height - 12, w: outW, h: line.height + 12)
            SDL_SetRenderDrawColor(r, 0, 0, 0, 180)
            SDL_RenderFillRect(r, &box)
            var at = SDL_Rect(x: 10, y: bottom - line.height - 6, w: line.width, h: line.height)
            SDL_RenderCopy(r, line.texture.pointer, nil, &at)
        }
        let messagesTop = drawMessages(overlay.messages, outputWidth: outW, bottom: bottom - statusHeight - 4)
        if let subtitle = overlay.subtitle, let lines = subtitleLines(subtitle) {
            // Bottom up, each line on a dark box of its own, as TV subtitles are.
            var lineBottom = min(bottom - statusHeight - 8, messagesTop - 4)
            for line in lines.reversed() {
                var box = SDL_Rect(x: (outW - line.width) / 2 - 6, y: lineBottom - line.height - 2, w: line.width + 12, h: line.height + 4)
                SDL_SetRenderDrawColor(r, 0, 0, 0, 160)
                SDL_RenderFillRect(r, &box)
                var at = SDL_Rect(x: (outW - line.width) / 2, y: lineBottom - line.height, w: line.width, h: line.height)
                SDL_RenderCopy(r, line.texture.pointer, nil, &at)
                lineBottom -= line.height + 4
            }
        }
        if let help = overlay.help, let lines = helpLines(help) {
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
        return stripNanoseconds
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
            let lines = text.split(separator: "\n").compactMap { render(String($0), font: subtitleFont) }
            subtitleImages = (text, lines)
        }
        return subtitleImages?.lines.isEmpty == false ? subtitleImages?.lines : nil
    }
}
