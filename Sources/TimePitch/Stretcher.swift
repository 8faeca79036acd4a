import Foundation
internal import CRubberBand

/// Owns a Rubber Band stretcher (`rubberband_new` … `rubberband_delete`).
///
/// Rubber Band's time ratio is output duration over input duration: playback rate 0.25 is
/// time ratio 4.
final class Stretcher {
    enum Mode { case offline, realTime }

    private let state: RubberBandState
    let channels: Int
    let mode: Mode

    /// The lowest sample rate Rubber Band is given: R3's own minimum (below it, R3 prints a
    /// warning to stderr and R2 never finishes: a 100 Hz file hung timeDomain for good).
    static let minimumSampleRate = 8000

    /// Time ratios at which Rubber Band 3.1.2's R3 engine diverges with its standard window:
    /// its output grows without bound (to 1e12 within a second at 1/13, 13x faster, whatever
    /// the size of the process calls, offline and real-time alike), and the garbage differs
    /// from run to run, so an export failed ("encoding failed: Invalid argument": the AAC
    /// encoder refuses NaN and infinity) or gave different audio each time. Measured on a
    /// sine with noise, 250000 frames in: diverging from 0.063 to 0.0797, and stable with the
    /// short window at every ratio from 0.03 to 0.15 (step 0.001); this range has a margin.
    static let divergentSpectralRatios: ClosedRange<Double> = (1.0 / 17)...(1.0 / 12)

    /// `sectionRatios`: the other time ratios the run goes through (a key-frame map's sections).
    init(sampleRate: Int, channels: Int, algorithm: TimePitchAlgorithm, mode: Mode,
         timeRatio: Double, pitchScale: Double, sectionRatios: [Double] = []) throws(TimePitchError) {
        precondition(algorithm != .varispeed, "varispeed resamples; it does not stretch")
        guard sampleRate >= Self.minimumSampleRate, let rate = UInt32(exactly: sampleRate), let count = UInt32(exactly: channels) else {
            throw .unsupportedFormat("the \(algorithm) algorithm stretches audio of 8 kHz or more, and this is \(sampleRate) Hz; varispeed plays any rate")
        }
        var options = mode == .offline ? RubberBandOptionProcessOffline.rawValue : RubberBandOptionProcessRealTime.rawValue
        if algorithm == .spectral {
            options |= RubberBandOptionEngineFiner.rawValue
            // R3 with its short window where the standard one diverges (the pitch scale counted
            // in too, as R3 stretches by their product before resampling).
            let unstable = Self.divergentSpectralRatios
            if ([timeRatio] + sectionRatios).contains(where: { unstable.contains($0) || unstable.contains($0 * pitchScale) }) {
                options |= RubberBandOptionWindowShort.rawValue
            }
        }
        if mode == .realTime {
            // Consistent pitch lets the pitch scale change smoothly while playing.
            options |= RubberBandOptionPitchHighConsistency.rawValue
        } else if pitchScale != 1 {
            options |= RubberBandOptionPitchHighQuality.rawValue
        }
        guard let state = rubberband_new(rate, count, RubberBandOptions(Int32(bitPattern: options)), timeRatio, pitchScale) else {
            throw .engine("Rubber Band could not be set up for \(sampleRate) Hz, \(channels) channels")
        }
        self.state = state
        if getenv("SLOWPOKE_RB_DEBUG") != nil { rubberband_set_debug_level(state, 2) }
        self.channels = channels
        self.mode = mode
        let wanted = algorithm == .spectral ? 3 : 2
        guard rubberband_get_engine_version(state) == Int32(wanted) else {
            throw .engine("Rubber Band gave engine R\(rubberband_get_engine_version(state)) instead of R\(wanted)")
        }
    }

    deinit { rubberband_delete(state) }

    var timeRatio: Double {
        get { rubberband_get_time_ratio(state) }
        set { rubberband_set_time_ratio(state, newValue) }
    }

    var pitchScale: Double {
        get { rubberband_get_pitch_scale(state) }
        set { rubberband_set_pitch_scale(state, newValue) }
    }

    /// Silence to feed before the first real input (real-time mode; zero offline).
    var preferredStartPad: Int { Int(rubberband_get_preferred_start_pad(state)) }
    /// Output to discard after that padding so output lines up with input (zero offline).
    var startDelay: Int { Int(rubberband_get_start_delay(state)) }
    var samplesRequired: Int { Int(rubberband_get_samples_required(state)) }

    func setExpectedInputDuration(_ frames: Int) { rubberband_set_expected_input_duration(state, UInt32(frames)) }
    func setMaxProcessSize(_ frames: Int) { rubberband_set_max_process_size(state, UInt32(frames)) }

    /// Offline only, before the first `process` call: input frame → output frame points the
    /// stretch passes through (a time ratio per section; the overall ratio is still
    /// ``timeRatio``). Never give (0, 0): its section's ratio would be 0/0.
    func setKeyFrameMap(_ map: [(input: Int, output: Int)]) {
        var from = map.map { UInt32($0.input) }, to = map.map { UInt32($0.output) }
        rubberband_set_key_frame_map(state, UInt32(map.count), &from, &to)
    }

    private lazy var inBuffer = PlanarBuffer(channels: channels, capacity: 4096)
    private lazy var outBuffer = PlanarBuffer(channels: channels, capacity: 4096)

    func study(_ buffer: [[Float]], count: Int, final: Bool) {
        inBuffer.load(buffer, count: count)
        inBuffer.table.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: channels) {
            rubberband_study(state, $0, UInt32(count), final ? 1 : 0)
        }
    }

    func process(_ buffer: [[Float]], count: Int, final: Bool) {
        inBuffer.load(buffer, count: count)
        inBuffer.table.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: channels) {
            rubberband_process(state, $0, UInt32(count), final ? 1 : 0)
        }
    }

    /// Frames ready to retrieve; -1 once everything after a final process call has been read.
    var available: Int { Int(rubberband_available(state)) }

    /// Retrieves up to `count` frames into `buffer` (arrays at least `count` long), returning
    /// how many it wrote.
    func retrieve(into buffer: inout [[Float]], count: Int) -> Int {
        outBuffer.reserve(count)
        let got = Int(rubberband_retrieve(state, outBuffer.table, UInt32(count)))
        outBuffer.copyOut(got, into: &buffer)
        return got
    }
}
