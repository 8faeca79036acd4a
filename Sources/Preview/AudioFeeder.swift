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
/// Played backwards (`J`), the engine reads the composition audio mirrored: its position p is
/// composition frame `frameCount - p`, and each block it reads is the block before that,
/// reversed. The clock then runs down.
///
/// `@unchecked Sendable`: the engine and the composition audio (and the C objects inside them:
/// Rubber Band state, the file reader) are used only by the feeder thread once it has started.
/// Everything the player's thread touches (`pending…`, `generation`, `log`, `queuedTotal`,
/// `heardRate`) is read and written only while `lock` is held, and the SDL audio calls are
/// documented as thread-safe. Rendering happens outside the lock, so a slow engine never keeps
/// the player's thread (keys, video) waiting.
final class AudioFeeder: @unchecked Sendable {
    let format: AudioFormat
    let device: SDL_AudioDeviceID
    /// Frames the device holds beyond the queue (one hardware buffer), not yet heard; zero for
    /// the disk driver, which writes a buffer as soon as it takes it.
    let deviceLag: Int64
    /// Frames to keep queued ahead of the device.
    let target: Int
    let driver: String
    /// The disk driver's file (SDL's default name unless SDL_DISKAUDIOFILE names one).
    private let diskFile: String?

    private let lock = NSLock()
    private var engine: RealtimeTimePitch
    private var audio: CompositionAudio
    private var queuedTotal: Int64 = 0
    private var log: [(frame: Int64, position: Double)] = []
    /// The rate of the latest logged block, to extrapolate past it.
    private var heardRate: Double
    /// Settings and a restart the player asked for, not yet applied by the feeder thread.
    private var pendingSettings: PlaybackSettings?
    private var pendingReset: (position: Double, audio: CompositionAudio?, backwards: Bool)?
    /// Whether the engine plays the audio backwards (the feeder thread's, set by a reset).
    private var backwards = false
    /// Bumped by every restart; a block rendered before one is dropped, not queued.
    private var generation = 0
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
        heardRate = settings.rate.doubleValue
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
        diskFile = driverName == "disk" ? ProcessInfo.processInfo.environment["SDL_DISKAUDIOFILE"] ?? "sdlaudio.raw" : nil
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

    /// Takes effect at the feeder's next block (within a few ms).
    func apply(_ settings: PlaybackSettings) throws {
        lock.withLock { pendingSettings = settings }
    }

    /// Drops what is queued and plays on from composition frame `position`, optionally from new
    /// composition audio (after an edit), backwards or forwards (nil: as before). The clock
    /// reads `position` at once.
    func seek(to position: Double, audio newAudio: CompositionAudio? = nil, backwards: Bool? = nil) throws {
        lock.withLock {
            generation += 1
            let direction = backwards ?? pendingReset?.backwards ?? heardBackwards
            pendingReset = (position, newAudio ?? pendingReset?.audio, direction)
            heardBackwards = direction
            SDL_ClearQueuedAudio(device)
            log = [(handedLocked(), position)]
        }
    }

    /// The direction the clock runs in (the player's view, under the lock).
    private var heardBackwards = false

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
            return entry.position + Double(heard - entry.frame) * (heardBackwards ? -heardRate : heardRate)
        }
    }

    /// Frames the device has taken from the queue so far: with the disk driver, the frames
    /// written to its file (see ``ClockLog``).
    var deviceFrames: Int64 { lock.withLock { handedLocked() } }

    /// With the disk driver, the frames its file holds: what has been "heard", silence included
    /// (SDL writes silence while paused or when the queue runs dry); nil for another driver.
    var writtenFrames: Int64? {
        guard let file = diskFile else { return nil }
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return Int64(info.st_size) / Int64(4 * format.channels)
    }

    /// Frames the device has taken from the queue so far.
    private func handedLocked() -> Int64 {
        queuedTotal - Int64(SDL_GetQueuedAudioSize(device)) / Int64(4 * format.channels)
    }

    private func feed() {
        while true {
            let (settings, reset, generation, queued, stop) = lock.withLock {
                defer { pendingSettings = nil; pendingReset = nil }
                return (pendingSettings, pendingReset, self.generation,
                        Int(SDL_GetQueuedAudioSize(device)) / (4 * format.channels), stopping || failure != nil)
            }
            if stop { return }
            do {
                if let reset {
                    if let newAudio = reset.audio { audio = newAudio }
                    backwards = reset.backwards
                    try engine.reset(at: backwards ? Double(audio.frameCount) - reset.position : reset.position)
                }
                if let settings {
                    if engine.algorithm != settings.algorithm { try engine.setAlgorithm(settings.algorithm) }
                    if engine.rate != settings.rate.doubleValue { try engine.setRate(settings.rate.doubleValue) }
                    if engine.semitones != Double(settings.semitones) && settings.algorithm != .varispeed {
                        try engine.setSemitones(Double(settings.semitones))
                    }
                }
                guard queued < target else {
                    usleep(2000)
                    continue
                }
                try renderBlock(generation: generation)
            } catch {
                lock.withLock { failure = error }
                return
            }
        }
    }

    private func renderBlock(generation rendered: Int) throws {
        let n = Self.block
        let audio = self.audio
        let total = audio.frameCount
        let backwards = self.backwards
        let position = backwards ? Double(total) - engine.sourcePosition : engine.sourcePosition
        let out = try engine.render(n) { from, count in
            guard backwards else { return try audio.read(from: from, count: count) }
            // Mirrored: the block that ends at frame total - from, reversed.
            var block = try audio.read(from: total - from - Int64(count), count: count)
            for c in block.indices { block[c].reverse() }
            return block
        }
        let channels = format.channels
        if interleaved.count != n * channels { interleaved = [Float](repeating: 0, count: n * channels) }
        for c in 0..<channels {
            let plane = out[c]
            for i in 0..<n { interleaved[i * channels + c] = plane[i] }
        }
        let rate = engine.rate
        try lock.withLock {
            // A restart came in while this block was rendered: it belongs to the old position.
            guard generation == rendered else { return }
            let result = interleaved.withUnsafeBytes { SDL_QueueAudio(device, $0.baseAddress, UInt32($0.count)) }
            if result != 0 { throw PreviewError.sdl(what: "queue audio", reason: String(cString: SDL_GetError())) }
            log.append((queuedTotal, position))
            queuedTotal += Int64(n)
            heardRate = rate
            // Keep about ten seconds of blocks: the heard frame is never further back than the queue.
            if log.count > 4096 { log.removeFirst(2048) }
        }
    }
}
