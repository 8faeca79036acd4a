import Foundation
internal import CSDL2

/// SDL2 and SDL2_ttf, opened when a preview starts instead of linked. Only `slowpoke preview`
/// uses them, while loading them with their dependencies (PulseAudio, D-Bus, systemd, Wayland,
/// X11 extensions …) cost every slowpoke command about 10 ms at start-up, a quarter of it.
///
/// The function types are those of the C declarations; a test linked against both libraries
/// checks each one against its header and each looked-up address against the one the linker
/// binds. The functions below this type have the C names and signatures, so the preview's code
/// reads as plain SDL; being declared in this module, they shadow the imported declarations.
struct SDLLibrary: @unchecked Sendable {
    // @unchecked: immutable C function pointers into libraries that are never closed.
    typealias Init = @convention(c) (UInt32) -> Int32
    typealias Void0 = @convention(c) () -> Void
    typealias Int0 = @convention(c) () -> Int32
    typealias String0 = @convention(c) () -> UnsafePointer<CChar>?
    typealias Destroy = @convention(c) (OpaquePointer?) -> Void
    typealias OpenFont = @convention(c) (UnsafePointer<CChar>?, Int32) -> OpaquePointer?
    typealias RenderText = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SDL_Color) -> UnsafeMutablePointer<SDL_Surface>?
    typealias FreeSurface = @convention(c) (UnsafeMutablePointer<SDL_Surface>?) -> Void
    typealias CreateWindow = @convention(c) (UnsafePointer<CChar>?, Int32, Int32, Int32, Int32, UInt32) -> OpaquePointer?
    typealias SetWindowTitle = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void
    typealias CreateRenderer = @convention(c) (OpaquePointer?, Int32, UInt32) -> OpaquePointer?
    typealias CreateTexture = @convention(c) (OpaquePointer?, UInt32, Int32, Int32, Int32) -> OpaquePointer?
    typealias CreateTextureFromSurface = @convention(c) (OpaquePointer?, UnsafeMutablePointer<SDL_Surface>?) -> OpaquePointer?
    typealias UpdateYUVTexture = @convention(c) (OpaquePointer?, UnsafePointer<SDL_Rect>?, UnsafePointer<UInt8>?, Int32,
                                                 UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32) -> Int32
    typealias SetDrawColor = @convention(c) (OpaquePointer?, UInt8, UInt8, UInt8, UInt8) -> Int32
    typealias RendererCall = @convention(c) (OpaquePointer?) -> Int32
    typealias OutputSize = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32
    typealias RenderCopy = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<SDL_Rect>?, UnsafePointer<SDL_Rect>?) -> Int32
    typealias RenderCopyEx = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<SDL_Rect>?, UnsafePointer<SDL_Rect>?,
                                             Double, UnsafePointer<SDL_Point>?, SDL_RendererFlip) -> Int32
    typealias SetBlendMode = @convention(c) (OpaquePointer?, SDL_BlendMode) -> Int32
    typealias FillRect = @convention(c) (OpaquePointer?, UnsafePointer<SDL_Rect>?) -> Int32
    typealias PollEvent = @convention(c) (UnsafeMutablePointer<SDL_Event>?) -> Int32
    typealias Delay = @convention(c) (UInt32) -> Void
    typealias OpenAudioDevice = @convention(c) (UnsafePointer<CChar>?, Int32, UnsafePointer<SDL_AudioSpec>?,
                                                UnsafeMutablePointer<SDL_AudioSpec>?, Int32) -> SDL_AudioDeviceID
    typealias AudioInit = @convention(c) (UnsafePointer<CChar>?) -> Int32
    typealias DeviceCall = @convention(c) (SDL_AudioDeviceID) -> Void
    typealias PauseDevice = @convention(c) (SDL_AudioDeviceID, Int32) -> Void
    typealias QueuedSize = @convention(c) (SDL_AudioDeviceID) -> UInt32
    typealias QueueAudio = @convention(c) (SDL_AudioDeviceID, UnsafeRawPointer?, UInt32) -> Int32
    typealias SizeText = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<Int32>?,
                                         UnsafeMutablePointer<Int32>?) -> Int32
    typealias ModState = @convention(c) () -> SDL_Keymod

    let initialise: Init, quit: Void0, getError: String0
    let ttfInit: Int0, ttfQuit: Void0, openFont: OpenFont, closeFont: Destroy, renderText: RenderText
    let freeSurface: FreeSurface
    let createWindow: CreateWindow, destroyWindow: Destroy, setWindowTitle: SetWindowTitle
    let createRenderer: CreateRenderer, destroyRenderer: Destroy
    let createTexture: CreateTexture, createTextureFromSurface: CreateTextureFromSurface, destroyTexture: Destroy
    let updateYUVTexture: UpdateYUVTexture
    let setDrawColor: SetDrawColor, renderClear: RendererCall, outputSize: OutputSize, renderCopy: RenderCopy
    let renderCopyEx: RenderCopyEx
    let setBlendMode: SetBlendMode, fillRect: FillRect, renderPresent: Destroy
    let pollEvent: PollEvent, delay: Delay
    let openAudioDevice: OpenAudioDevice, currentAudioDriver: String0, audioInit: AudioInit, audioQuit: Void0
    let currentVideoDriver: String0
    let closeAudioDevice: DeviceCall, pauseAudioDevice: PauseDevice, clearQueuedAudio: DeviceCall
    let queuedAudioSize: QueuedSize, queueAudio: QueueAudio
    let sizeText: SizeText, modState: ModState

    /// The libraries' files, by the sonames their development packages link.
    static let fileNames = ["libSDL2-2.0.so.0", "libSDL2_ttf-2.0.so.0"]

    /// The libraries, loaded once; or why they cannot be.
    static let shared = Result { () throws(PreviewError) in try SDLLibrary() }

    /// The loaded functions. Only code that runs inside an ``SDLSession`` calls SDL, and the
    /// session loads the libraries (or throws) before anything else.
    static var loaded: SDLLibrary {
        guard case .success(let library) = shared else { preconditionFailure("SDL is used before SDLSession loaded it") }
        return library
    }

    private init() throws(PreviewError) {
        var handles: [UnsafeMutableRawPointer] = []
        for name in Self.fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                throw .sdl(what: "load \(name) (install libsdl2-2.0-0 and libsdl2-ttf-2.0-0)", reason: reason)
            }
            handles.append(handle)
        }
        func symbol<F>(_ name: String, as type: F.Type = F.self) throws(PreviewError) -> F {
            let handle = name.hasPrefix("TTF_") ? handles[1] : handles[0]
            guard let address = dlsym(handle, name) else {
                throw .sdl(what: "find \(name)", reason: "\(Self.fileNames.joined(separator: " or ")) does not have it")
            }
            return unsafeBitCast(address, to: type)
        }
        initialise = try symbol("SDL_Init")
        quit = try symbol("SDL_Quit")
        getError = try symbol("SDL_GetError")
        ttfInit = try symbol("TTF_Init")
        ttfQuit = try symbol("TTF_Quit")
        openFont = try symbol("TTF_OpenFont")
        closeFont = try symbol("TTF_CloseFont")
        renderText = try symbol("TTF_RenderUTF8_Blended")
        freeSurface = try symbol("SDL_FreeSurface")
        createWindow = try symbol("SDL_CreateWindow")
        destroyWindow = try symbol("SDL_DestroyWindow")
        setWindowTitle = try symbol("SDL_SetWindowTitle")
        createRenderer = try symbol("SDL_CreateRenderer")
        destroyRenderer = try symbol("SDL_DestroyRenderer")
        createTexture = try symbol("SDL_CreateTexture")
        createTextureFromSurface = try symbol("SDL_CreateTextureFromSurface")
        destroyTexture = try symbol("SDL_DestroyTexture")
        updateYUVTexture = try symbol("SDL_UpdateYUVTexture")
        setDrawColor = try symbol("SDL_SetRenderDrawColor")
        renderClear = try symbol("SDL_RenderClear")
        outputSize = try symbol("SDL_GetRendererOutputSize")
        renderCopy = try symbol("SDL_RenderCopy")
        renderCopyEx = try symbol("SDL_RenderCopyEx")
        setBlendMode = try symbol("SDL_SetRenderDrawBlendMode")
        fillRect = try symbol("SDL_RenderFillRect")
        renderPresent = try symbol("SDL_RenderPresent")
        pollEvent = try symbol("SDL_PollEvent")
        delay = try symbol("SDL_Delay")
        openAudioDevice = try symbol("SDL_OpenAudioDevice")
        currentAudioDriver = try symbol("SDL_GetCurrentAudioDriver")
        currentVideoDriver = try symbol("SDL_GetCurrentVideoDriver")
        audioInit = try symbol("SDL_AudioInit")
        audioQuit = try symbol("SDL_AudioQuit")
        closeAudioDevice = try symbol("SDL_CloseAudioDevice")
        pauseAudioDevice = try symbol("SDL_PauseAudioDevice")
        clearQueuedAudio = try symbol("SDL_ClearQueuedAudio")
        queuedAudioSize = try symbol("SDL_GetQueuedAudioSize")
        queueAudio = try symbol("SDL_QueueAudio")
        sizeText = try symbol("TTF_SizeUTF8")
        modState = try symbol("SDL_GetModState")
    }
}

// The SDL functions the preview calls, by their C names (see SDLLibrary).
private var sdl: SDLLibrary { SDLLibrary.loaded }

func SDL_Init(_ flags: UInt32) -> Int32 { sdl.initialise(flags) }
func SDL_Quit() { sdl.quit() }
/// SDL never returns NULL here; the fallback keeps the signature the callers rely on.
nonisolated(unsafe) private let unknownError = UnsafePointer<CChar>(strdup("unknown SDL error")!)
func SDL_GetError() -> UnsafePointer<CChar> { sdl.getError() ?? unknownError }
func TTF_Init() -> Int32 { sdl.ttfInit() }
func TTF_Quit() { sdl.ttfQuit() }
func TTF_OpenFont(_ file: UnsafePointer<CChar>?, _ size: Int32) -> OpaquePointer? { sdl.openFont(file, size) }
func TTF_CloseFont(_ font: OpaquePointer?) { sdl.closeFont(font) }
func TTF_RenderUTF8_Blended(_ font: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ color: SDL_Color) -> UnsafeMutablePointer<SDL_Surface>? {
    sdl.renderText(font, text, color)
}
func SDL_FreeSurface(_ surface: UnsafeMutablePointer<SDL_Surface>?) { sdl.freeSurface(surface) }
func SDL_CreateWindow(_ title: UnsafePointer<CChar>?, _ x: Int32, _ y: Int32, _ w: Int32, _ h: Int32, _ flags: UInt32) -> OpaquePointer? {
    sdl.createWindow(title, x, y, w, h, flags)
}
func SDL_DestroyWindow(_ window: OpaquePointer?) { sdl.destroyWindow(window) }
func SDL_SetWindowTitle(_ window: OpaquePointer?, _ title: UnsafePointer<CChar>?) { sdl.setWindowTitle(window, title) }
func SDL_CreateRenderer(_ window: OpaquePointer?, _ index: Int32, _ flags: UInt32) -> OpaquePointer? {
    sdl.createRenderer(window, index, flags)
}
func SDL_DestroyRenderer(_ renderer: OpaquePointer?) { sdl.destroyRenderer(renderer) }
func SDL_CreateTexture(_ renderer: OpaquePointer?, _ format: UInt32, _ access: Int32, _ w: Int32, _ h: Int32) -> OpaquePointer? {
    sdl.createTexture(renderer, format, access, w, h)
}
func SDL_CreateTextureFromSurface(_ renderer: OpaquePointer?, _ surface: UnsafeMutablePointer<SDL_Surface>?) -> OpaquePointer? {
    sdl.createTextureFromSurface(renderer, surface)
}
func SDL_DestroyTexture(_ texture: OpaquePointer?) { sdl.destroyTexture(texture) }
@discardableResult
func SDL_UpdateYUVTexture(_ texture: OpaquePointer?, _ rect: UnsafePointer<SDL_Rect>?, _ y: UnsafePointer<UInt8>?, _ yPitch: Int32,
                          _ u: UnsafePointer<UInt8>?, _ uPitch: Int32, _ v: UnsafePointer<UInt8>?, _ vPitch: Int32) -> Int32 {
    sdl.updateYUVTexture(texture, rect, y, yPitch, u, uPitch, v, vPitch)
}
@discardableResult
func SDL_SetRenderDrawColor(_ renderer: OpaquePointer?, _ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> Int32 {
    sdl.setDrawColor(renderer, r, g, b, a)
}
@discardableResult
func SDL_RenderClear(_ renderer: OpaquePointer?) -> Int32 { sdl.renderClear(renderer) }
@discardableResult
func SDL_GetRendererOutputSize(_ renderer: OpaquePointer?, _ w: UnsafeMutablePointer<Int32>?, _ h: UnsafeMutablePointer<Int32>?) -> Int32 {
    sdl.outputSize(renderer, w, h)
}
@discardableResult
func SDL_RenderCopy(_ renderer: OpaquePointer?, _ texture: OpaquePointer?, _ source: UnsafePointer<SDL_Rect>?,
                    _ target: UnsafePointer<SDL_Rect>?) -> Int32 {
    sdl.renderCopy(renderer, texture, source, target)
}
@discardableResult
func SDL_RenderCopyEx(_ renderer: OpaquePointer?, _ texture: OpaquePointer?, _ source: UnsafePointer<SDL_Rect>?,
                      _ target: UnsafePointer<SDL_Rect>?, _ angle: Double, _ center: UnsafePointer<SDL_Point>?,
                      _ flip: SDL_RendererFlip) -> Int32 {
    sdl.renderCopyEx(renderer, texture, source, target, angle, center, flip)
}
@discardableResult
func SDL_SetRenderDrawBlendMode(_ renderer: OpaquePointer?, _ mode: SDL_BlendMode) -> Int32 { sdl.setBlendMode(renderer, mode) }
@discardableResult
func SDL_RenderFillRect(_ renderer: OpaquePointer?, _ rect: UnsafePointer<SDL_Rect>?) -> Int32 { sdl.fillRect(renderer, rect) }
func SDL_RenderPresent(_ renderer: OpaquePointer?) { sdl.renderPresent(renderer) }
func SDL_PollEvent(_ event: UnsafeMutablePointer<SDL_Event>?) -> Int32 { sdl.pollEvent(event) }
func SDL_Delay(_ ms: UInt32) { sdl.delay(ms) }
func SDL_OpenAudioDevice(_ device: UnsafePointer<CChar>?, _ isCapture: Int32, _ desired: UnsafePointer<SDL_AudioSpec>?,
                         _ obtained: UnsafeMutablePointer<SDL_AudioSpec>?, _ allowedChanges: Int32) -> SDL_AudioDeviceID {
    sdl.openAudioDevice(device, isCapture, desired, obtained, allowedChanges)
}
func SDL_GetCurrentAudioDriver() -> UnsafePointer<CChar>? { sdl.currentAudioDriver() }
func SDL_GetCurrentVideoDriver() -> UnsafePointer<CChar>? { sdl.currentVideoDriver() }
func SDL_AudioInit(_ driver: UnsafePointer<CChar>?) -> Int32 { sdl.audioInit(driver) }
func SDL_AudioQuit() { sdl.audioQuit() }
func SDL_CloseAudioDevice(_ device: SDL_AudioDeviceID) { sdl.closeAudioDevice(device) }
func SDL_PauseAudioDevice(_ device: SDL_AudioDeviceID, _ pause: Int32) { sdl.pauseAudioDevice(device, pause) }
func SDL_ClearQueuedAudio(_ device: SDL_AudioDeviceID) { sdl.clearQueuedAudio(device) }
func SDL_GetQueuedAudioSize(_ device: SDL_AudioDeviceID) -> UInt32 { sdl.queuedAudioSize(device) }
func SDL_QueueAudio(_ device: SDL_AudioDeviceID, _ data: UnsafeRawPointer?, _ length: UInt32) -> Int32 {
    sdl.queueAudio(device, data, length)
}
@discardableResult
func TTF_SizeUTF8(_ font: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ w: UnsafeMutablePointer<Int32>?,
                  _ h: UnsafeMutablePointer<Int32>?) -> Int32 {
    sdl.sizeText(font, text, w, h)
}
func SDL_GetModState() -> SDL_Keymod { sdl.modState() }
