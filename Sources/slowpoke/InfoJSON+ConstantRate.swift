import Composition
import Export

extension InfoJSON {
    /// `info --json --fps N`'s `exportConstantRate`: the planned `export --fps` export, from
    /// its own preview (the warnings it gives before any work, as facts and remedies).
    struct ConstantRate: Encodable {
        let fps: Rational
        /// The output as the export's summary names it.
        let output: String
        /// The line `export --dry-run --fps` prints; nil when the export refuses.
        let wouldWrite: String?
        let encoder: Encoder?
        let streams: StreamPlan?
        let warnings: [Warning]
        /// Why the export refuses before any work, in `export`'s words.
        let refusal: String?

        init(_ plan: ConstantRatePlan) {
            fps = plan.fps
            output = plan.output
            wouldWrite = plan.wouldWrite
            refusal = plan.refusal
            let preview = try? plan.preview.get()
            encoder = preview.map { Encoder($0.encoder) }
            streams = preview?.streams
            warnings = preview?.warnings.map(Warning.init) ?? []
        }
    }

    /// The encoder settings the export would use.
    struct Encoder: Encodable {
        let codec: String
        let profile: String
        let level: String
        let crf: Double
        let preset: String
        let pixelFormat: String
        /// As the summary names it: `h264 high level 3.0 crf 20 preset medium`.
        let summary: String

        init(_ e: EncoderSettings) {
            (codec, profile, level, crf, preset, pixelFormat) = (e.codec.rawValue, e.profile, e.level, e.crf, e.preset, e.pixelFormatName)
            summary = ExportMovie.encoding(e)
        }
    }

    /// One warning: the words `export` prints, and the same as the library states it.
    struct Warning: Encodable {
        /// The line after `slowpoke: warning: `.
        let text: String
        let fact: String
        let aside: String?
        /// Each remedy as the command line words it (`--codec hevc keeps it`).
        let remedies: [String]

        init(_ notice: Notice) {
            text = FlagAdvice.text(notice)
            fact = notice.fact
            aside = notice.aside
            remedies = notice.remedies.map(FlagAdvice.words)
        }
    }
}
