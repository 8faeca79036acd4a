import Composition
import Foundation
import TimePitch
internal import CSDL2

/// Feeds an SDL audio device from the live time-pitch engine on a thread of its own, and tells
/// which composition time is being heard: the audio clock that the video follows.
///
/// The feeder keeps only a little audio queued ahead of the device (``target`` frames), so a
/// rate or pitch change is heard within tens of milliseconds. It logs, for each block it
/// queues, the engine's ``RealtimeTimePitch/sourcePosition`` at the block's first frame (the
/// engine's position already accounts for its latency); the device's consumption of the queue
/// then says which of those frames is playing now.
///
/// `@unchecked Sendable`: every stored property is read and written only while `lock` is held,
/// by the feeder thread and the player's thread alike, and the SDL audio calls it makes are
/// documented as thread-safe. The C objects (the engine's Rubber Band state, the file reader)
/// are therefore never used by two threads at once.
final class AudioFeeder: @unchecked Sendable {
    let format: AudioFormat
    let device: SDL_AudioDeviceID
    /// Frames the device holds beyond the queue (one hardware buffer), not yet heard; zero for
    /// the disk driver, which writes a buffer as soon as it takes it.
    let deviceLag: Int64
    /// Frames to keep queued ahead of the device.
    let target: Int
    let driver: String

    private let lock = NSLock()
    private var engine: RealtimeTimePitch
    private var audio: CompositionAudio
    private var queuedTotal: Int64 = 0
    private var log: [(frame: Int64, position: Double)] = []
    private var stopping = false
    private var thread: Thread?
    private var failure: Error?
    private var interleaved: [Float] = []
    private static let block = 256

    init(audio: CompositionAudio, settings: PlaybackSettings, at position: Double) throws {
        self.audio = audio
        format = audio.format
        engine = try RealtimeTimePitch(format: format, algorithm: settings.algorithm, rate: settings.rate.doubleValue,
                                       semitones: Double(settings.semitones))
        try engine.reset(at: position)
        var want = SDL_AudioSpec()
        want.freq = Int32(format.sampleRate)
        want.format = sp_audio_f32sys()
        want.channels = UInt8(format.channels)
        want.samples = 512
        var have = SDL_AudioSpec()
        var opened = SDL_OpenAudioDevice(nil, 0, &want, &have, 0)
        var driverName = SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "none"
        if opened == 0 {
            // No sound card (a server, a container): play on the dummy driver, which consumes
            // audio in real time, so the clock still runs.
            SDL_AudioQuit()
            if SDL_AudioInit("dummy") == 0 { opened = SDL_OpenAudioDevice(nil, 0, &want, &have, 0) }
            driverName = "dummy"
        }
        guard opened != 0 else { throw PreviewError.sdl(what: "open the audio device", reason: String(cString: SDL_GetError())) }
        device = opened
        driver = driverName
        deviceLag = driverName == "disk" ? 0 : Int64(have.samples)
        // 32 ms: enough to ride out a busy moment on a loaded machine, short enough that a key
        // is heard well within 100 ms (queue + one device buffer + the engine's latency).
        target = 1536
        log = [(0, position)]
    }

    deinit {
        SDL_CloseAudioDevice(device)
    }

    func start() {
        let thread = Thread { [self] in self.feed() }
        thread.name = "slowpoke audio"
        thread.qualityOfService = .userInteractive
        self.thread = thread
        thread.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        while thread?.isFinished == false { usleep(1000) }
        SDL_PauseAudioDevice(device, 1)
    }

    /// The first error the feeder thread met, if any.
    var error: Error? { lock.withLock { failure } }

    func setPlaying(_ playing: Bool) { SDL_PauseAudioDevice(device, playing ? 0 : 1) }

    func apply(_ settings: PlaybackSettings) throws {
        try lock.withLock {
            if engine.algorithm != settings.algorithm { try engine.setAlgorithm(settings.algorithm) }
            if engine.rate != settings.rate.doubleValue { try engine.setRate(settings.rate.doubleValue) }
            if engine.semitones != Double(settings.semitones) && settings.algorithm != .varispeed {
                try engine.setSemitones(Double(settings.semitones))
            }
        }
    }

    /// Drops what is queued and plays on from composition frame `position`, optionally from new
    /// composition audio (after an edit).
    func seek(to position: Double, audio newAudio: CompositionAudio? = nil) throws {
        try lock.withLock {
            if let newAudio { audio = newAudio }
            SDL_ClearQueuedAudio(device)
            try engine.reset(at: position)
            log = [(handedLocked(), position)]
        }
    }

    /// The composition frame being heard now.
    var heardPosition: Double {
        lock.withLock {
            let heard = handedLocked() - deviceLag
            // The last logged block that started at or before the heard frame.
            guard let index = log.lastIndex(where: { $0.frame <= heard }) else { return log[0].position }
            let entry = log[index]
            if index + 1 < log.count {
                let next = log[index + 1]
                let span = Double(next.frame - entry.frame)
                return entry.position + (next.position - entry.position) * Double(heard - entry.frame) / span
            }
            return entry.position + Double(heard - entry.frame) * engine.rate
        }
    }

    /// Frames the device has taken from the queue so far.
    private func handedLocked() -> Int64 {
        queuedTotal - Int64(SDL_GetQueuedAudioSize(device)) / Int64(4 * format.channels)
    }

    private func feed() {
        while true {
            let wait: Bool = lock.withLock {
                if stopping || failure != nil { return false }
                let queued = Int(SDL_GetQueuedAudioSize(device)) / (4 * format.channels)
                guard queued < target else { return true }
                do { try renderBlockLocked() } catch { failure = error }
                return false
            }
            if lock.withLock({ stopping || failure != nil }) { return }
            if wait { usleep(2000) }
        }
    }

    private func renderBlockLocked() throws {
        let n = Self.block
        let position = engine.sourcePosition
        let audio = self.audio
        let out = try engine.render(n) { from, count in try audio.read(from: from, count: count) }
        let channels = format.channels
        if interleaved.count != n * channels { interleaved = [Float](repeating: 0, count: n * channels) }
        for c in 0..<channels {
            let plane = out[c]
            for i in 0..<n { interleaved[i * channels + c] = plane[i] }
        }
        let result = interleaved.withUnsafeBytes { SDL_QueueAudio(device, $0.baseAddress, UInt32($0.count)) }
        if result != 0 { throw PreviewError.sdl(what: "queue audio", reason: String(cString: SDL_GetError())) }
        log.append((queuedTotal, position))
        queuedTotal += Int64(n)
        // Keep about ten seconds of blocks: the heard frame is never further back than the queue.
        if log.count > 4096 { log.removeFirst(2048) }
    }
}
