import CSDL2
@testable import struct Preview.SDLLibrary
import Testing

/// Preview opens SDL2 and SDL2_ttf at run time (see SDLLibrary). This test target links them,
/// so each function type must accept the header's declaration (checked when this compiles), and
/// each looked-up function must be the very one the linker binds.
@Suite struct SDLLibraryTests {
    func address<F>(_ function: F) -> UnsafeRawPointer { unsafeBitCast(function, to: UnsafeRawPointer.self) }

    @Test func theOpenedFunctionsAreTheDeclaredOnes() throws {
        let l = try SDLLibrary.shared.get()
        typealias L = SDLLibrary
        // Each C function, converted to the type SDLLibrary declares for it (the conversion is the check),
        // beside the pointer SDLLibrary looked up.
        let initialise: L.Init = SDL_Init
        let quit: L.Void0 = SDL_Quit
        let getError: L.String0 = SDL_GetError
        let ttfInit: L.Int0 = TTF_Init
        let ttfQuit: L.Void0 = TTF_Quit
        let openFont: L.OpenFont = TTF_OpenFont
        let closeFont: L.Destroy = TTF_CloseFont
        let renderText: L.RenderText = TTF_RenderUTF8_Blended
        let freeSurface: L.FreeSurface = SDL_FreeSurface
        let createWindow: L.CreateWindow = SDL_CreateWindow
        let destroyWindow: L.Destroy = SDL_DestroyWindow
        let setWindowTitle: L.SetWindowTitle = SDL_SetWindowTitle
        let createRenderer: L.CreateRenderer = SDL_CreateRenderer
        let destroyRenderer: L.Destroy = SDL_DestroyRenderer
        let createTexture: L.CreateTexture = SDL_CreateTexture
        let createTextureFromSurface: L.CreateTextureFromSurface = SDL_CreateTextureFromSurface
        let destroyTexture: L.Destroy = SDL_DestroyTexture
        let updateYUVTexture: L.UpdateYUVTexture = SDL_UpdateYUVTexture
        let setDrawColor: L.SetDrawColor = SDL_SetRenderDrawColor
        let renderClear: L.RendererCall = SDL_RenderClear
        let outputSize: L.OutputSize = SDL_GetRendererOutputSize
        let renderCopy: L.RenderCopy = SDL_RenderCopy
        let renderCopyEx: L.RenderCopyEx = SDL_RenderCopyEx
        let setBlendMode: L.SetBlendMode = SDL_SetRenderDrawBlendMode
        let fillRect: L.FillRect = SDL_RenderFillRect
        let renderPresent: L.Destroy = SDL_RenderPresent
        let pollEvent: L.PollEvent = SDL_PollEvent
        let delay: L.Delay = SDL_Delay
        let openAudioDevice: L.OpenAudioDevice = SDL_OpenAudioDevice
        let currentAudioDriver: L.String0 = SDL_GetCurrentAudioDriver
        let currentVideoDriver: L.String0 = SDL_GetCurrentVideoDriver
        let audioInit: L.AudioInit = SDL_AudioInit
        let audioQuit: L.Void0 = SDL_AudioQuit
        let closeAudioDevice: L.DeviceCall = SDL_CloseAudioDevice
        let pauseAudioDevice: L.PauseDevice = SDL_PauseAudioDevice
        let clearQueuedAudio: L.DeviceCall = SDL_ClearQueuedAudio
        let queuedAudioSize: L.QueuedSize = SDL_GetQueuedAudioSize
        let queueAudio: L.QueueAudio = SDL_QueueAudio
        let sizeText: L.SizeText = TTF_SizeUTF8
        let modState: L.ModState = SDL_GetModState
        let pairs: [(String, UnsafeRawPointer, UnsafeRawPointer)] = [
            ("SDL_Init", address(l.initialise), address(initialise)),
            ("SDL_Quit", address(l.quit), address(quit)),
            ("SDL_GetError", address(l.getError), address(getError)),
            ("TTF_Init", address(l.ttfInit), address(ttfInit)),
            ("TTF_Quit", address(l.ttfQuit), address(ttfQuit)),
            ("TTF_OpenFont", address(l.openFont), address(openFont)),
            ("TTF_CloseFont", address(l.closeFont), address(closeFont)),
            ("TTF_RenderUTF8_Blended", address(l.renderText), address(renderText)),
            ("SDL_FreeSurface", address(l.freeSurface), address(freeSurface)),
            ("SDL_CreateWindow", address(l.createWindow), address(createWindow)),
            ("SDL_DestroyWindow", address(l.destroyWindow), address(destroyWindow)),
            ("SDL_SetWindowTitle", address(l.setWindowTitle), address(setWindowTitle)),
            ("SDL_CreateRenderer", address(l.createRenderer), address(createRenderer)),
            ("SDL_DestroyRenderer", address(l.destroyRenderer), address(destroyRenderer)),
            ("SDL_CreateTexture", address(l.createTexture), address(createTexture)),
            ("SDL_CreateTextureFromSurface", address(l.createTextureFromSurface), address(createTextureFromSurface)),
            ("SDL_DestroyTexture", address(l.destroyTexture), address(destroyTexture)),
            ("SDL_UpdateYUVTexture", address(l.updateYUVTexture), address(updateYUVTexture)),
            ("SDL_SetRenderDrawColor", address(l.setDrawColor), address(setDrawColor)),
            ("SDL_RenderClear", address(l.renderClear), address(renderClear)),
            ("SDL_GetRendererOutputSize", address(l.outputSize), address(outputSize)),
            ("SDL_RenderCopy", address(l.renderCopy), address(renderCopy)),
            ("SDL_RenderCopyEx", address(l.renderCopyEx), address(renderCopyEx)),
            ("SDL_SetRenderDrawBlendMode", address(l.setBlendMode), address(setBlendMode)),
            ("SDL_RenderFillRect", address(l.fillRect), address(fillRect)),
            ("SDL_RenderPresent", address(l.renderPresent), address(renderPresent)),
            ("SDL_PollEvent", address(l.pollEvent), address(pollEvent)),
            ("SDL_Delay", address(l.delay), address(delay)),
            ("SDL_OpenAudioDevice", address(l.openAudioDevice), address(openAudioDevice)),
            ("SDL_GetCurrentAudioDriver", address(l.currentAudioDriver), address(currentAudioDriver)),
            ("SDL_GetCurrentVideoDriver", address(l.currentVideoDriver), address(currentVideoDriver)),
            ("SDL_AudioInit", address(l.audioInit), address(audioInit)),
            ("SDL_AudioQuit", address(l.audioQuit), address(audioQuit)),
            ("SDL_CloseAudioDevice", address(l.closeAudioDevice), address(closeAudioDevice)),
            ("SDL_PauseAudioDevice", address(l.pauseAudioDevice), address(pauseAudioDevice)),
            ("SDL_ClearQueuedAudio", address(l.clearQueuedAudio), address(clearQueuedAudio)),
            ("SDL_GetQueuedAudioSize", address(l.queuedAudioSize), address(queuedAudioSize)),
            ("SDL_QueueAudio", address(l.queueAudio), address(queueAudio)),
            ("TTF_SizeUTF8", address(l.sizeText), address(sizeText)),
            ("SDL_GetModState", address(l.modState), address(modState)),
        ]
        for (name, opened, linked) in pairs {
            #expect(opened == linked, "\(name)")
        }
        // And they work: SDL starts without a display or sound card on its dummy drivers.
        #expect(l.initialise(0) == 0)
        #expect(l.audioInit("dummy") == 0)
        #expect(String(cString: l.currentAudioDriver()!) == "dummy")
        l.audioQuit()
        l.quit()
    }
}
