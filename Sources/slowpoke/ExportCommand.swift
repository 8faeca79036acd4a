import ArgumentParser
import Composition
import Batch
import Export
import Foundation
import Project
import TimePitch
import Media

struct ExportMovie: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the retimed movie.",
        discussion: """
            With --fps N the composition is flattened to N frames per second and re-encoded as \
            H.264 (or HEVC with --codec hevc), which plays everywhere. A source with an alpha \
            channel (ProRes 4444, VP9 with alpha) is encoded by default with the codec that \
            keeps it in the output's container: ProRes 4444 (--codec prores, 10-bit, into .mov \
            or .mkv) or VP9 (--codec vp9, 8-bit 4:2:0, into .webm or .mkv); an .mp4 gets H.264 \
            and the export says the alpha is dropped. It also says when bit depth is reduced (a \
            10-bit source into H.264 or VP9, 12-bit ProRes into 10-bit). Output frame k sits at \
            k/N s and shows the source frame on screen at that moment (--frames nearest), a mix \
            of its two neighbours (blend), or a motion-interpolated in-between frame where a \
            section is slowed (interpolate). N may be 24, 25, 30, 60, 29.97, 23.976 (the exact \
            NTSC rates) or a fraction such as 30000/1001. Cuts are exact and gaps are black. \
            Profile, level and GOP length follow the picture size and rate; --crf and --preset \
            override quality and speed.

            Without --fps this is passthrough: every source frame the timeline shows is kept and \
            only its timestamps change, so nothing is lost. A 240 fps clip with a 0.25x \
            section keeps all its frames, spaced four times wider inside the section. Cuts are \
            frame-exact: in H.264 (8- or 10-bit, progressive; open GOPs too) and HEVC (Main or Main 10, \
            4:2:0; written as hev1 in .mp4 and .mov) in .mp4, .mov or .mkv only the frames \
            between a cut and the next keyframe are re-encoded (at 45 dB or better), every other \
            packet is copied, and the export says how many; other codecs, and --keyframe-cuts, \
            move cuts to keyframes and the export says where. A reversed range copies intra-only \
            video (ProRes, MJPEG, DNxHD, PNG, FFV1) frame by frame in reverse, re-encodes long-GOP \
            8-bit progressive H.264 backwards (and says how many frames), and is refused for other codecs and with \
            --keyframe-cuts (export with --fps). Audio follows the same timeline through \
            the chosen time-pitch algorithm: where the edits leave it unchanged the source's own \
            packets are kept (AAC, PCM, and Opus in .mkv or .webm) and only the edited stretches \
            are encoded, in the source's codec where the container holds it (else AAC; in .webm \
            Opus or Vorbis). A .webm movie exports to .webm (with --fps, which encodes H.264 or \
            HEVC, to .mkv).

            A document whose movie has no video (a song, a voice memo) exports its audio alone, \
            through the same algorithms, to .m4a (AAC), .wav, .flac, .mp3 or .opus, chosen by -o's \
            extension. AAC, MP3 and Opus keep the source's bit rate when it is that codec; WAV and \
            FLAC keep its depth and are exactly as long as the timeline (AAC, MP3 and Opus decode \
            to it within one codec frame). --fps does not apply.

            --dry-run writes nothing and prints what a passthrough export would write: its \
            frames, how many are re-encoded at cuts, the fit and every warning, from the same \
            plan the export runs (`slowpoke info` shows the default export's). With --fps it \
            prints the encoder and what it loses of the source (alpha, bit depth, PQ in 8 bits, \
            HDR10+), as the export says before any work.

            --verify checks a passthrough export before it is put in place: the output's frame \
            count and every frame's time against the plan (exact in its timescale), every copied \
            packet byte for byte against the source packet it copies (copies the export rewrote, \
            open-GOP recovery points made IDR and HEVC packets given parameter sets where copying \
            resumes, are decoded and must show the source's picture exactly), the re-encoded \
            frames decoded and compared with the source's (45 dB or better), the streams, and the \
            audio's start and end against the video's. It prints one line of proof; a difference \
            exits 1, names the frame, and keeps the output as <name>.FAILED-VERIFY.<ext>. Only \
            the re-encoded and rewritten frames are decoded, so it adds a fraction of the export's \
            time; with --crop or --zoom every picture is decoded (cropped exactly, as the \
            rewritten window says) and must equal the source's picture cut to the same region. \
            It does not apply to --fps or to audio alone.

            The output goes to <movie-stem>-slowpoke.<ext> beside the document unless -o says \
            otherwise (for audio, the source's extension when it is one of those, else .m4a). It \
            appears only when complete: an error or Ctrl-C leaves nothing behind.

            -o - writes the movie to standard output as a stream, for a pipe: Matroska, \
            fragmented mp4 or MPEG-TS (--format; by default mp4 for an .mp4 or .mov movie, ts \
            for a transport stream, else mkv). Progress, warnings and the summary go to \
            standard error. A stream cannot be taken back: an error or Ctrl-C stops it where it \
            is. --verify needs a file; a movie without video exports its audio to files only.

            Examples:
              slowpoke export
              slowpoke export --fps 30
              slowpoke export --verify -o checked.mp4
              slowpoke export --fps 29.97 --frames blend -o smooth.mp4
              slowpoke export --fps 60 --codec hevc --crf 26 --preset fast
              slowpoke export -o dog-slow.mov --algorithm timeDomain
              slowpoke export clip.slowpoke -o chipmunk.mp4 --algorithm varispeed --force
              slowpoke export song.slowpoke -o song-slow.flac
              slowpoke export --dry-run --keyframe-cuts
              slowpoke export -o - | ffplay -
              slowpoke export -o - --format ts > slow.ts
            """)

    @OptionGroup var options: DocumentOptions

    @OptionGroup var encoding: EncodingOptions<ExportWords>

    @Option(help: ArgumentHelp("With --fps: how frames between source frames are made: nearest, blend or interpolate.", valueName: "mode"))
    var frames: FrameSelection = .nearest

    @Option(help: ArgumentHelp("Export part of the picture, W:H:X:Y in pixels (W:H alone is centred); the output is W x H. With --fps it is cropped exactly; without, H.264 and HEVC are cropped without re-encoding (the cropping window of the stream's parameter sets is rewritten and every packet copied), which needs X, Y, W and H on the chroma grid (even for 4:2:0).", valueName: "W:H:X:Y"))
    var crop: String?

    @Option(help: ArgumentHelp("Zoom into the centre by a factor from 1 to 8: with --fps the middle 1/F of the picture is scaled back to its size (Lanczos); without, H.264 and HEVC are cropped to the middle 1/F without re-encoding, and players scale it.", valueName: "F"))
    var zoom: Double?

    @Option(help: ArgumentHelp("With --frames interpolate: fast (the default: motion found on the picture scaled down, several times faster than ffmpeg's minterpolate) or high (motion at full resolution up to 640 pixels wide, at half resolution above: about three times the CPU time; on the bench's real footage sharper on hand-held close-ups, not on every clip).", valueName: "q"))
    var quality: InterpolationQuality = .fast

    @Option(help: ArgumentHelp("With --fps: steady the picture with libvidstab, the camera's path smoothed over S frames either side (1-100; --stabilize alone: 10), after the retime. The movie is analysed once; the analysis is kept in <document>.slowpoke-stab beside the document and used again until the movie changes.", valueName: "S"))
    var stabilize: Int?

    @Option(help: ArgumentHelp("With --stabilize: zoom (the default: zoomed in just enough that no edge shows) or keep (the whole picture, the edges filled from the previous picture).", valueName: "b"))
    var stabilizeBorders: Stabilization.Borders?

    @Flag(help: "Keep the timeline exactly as edited. By default each edit is fitted to whole frames of the copied audio (AAC, Opus), moving it by less than half a frame, so every unchanged audio packet is copied and stays in sync.")
    var exact = false

    @Flag(help: "Without --fps: move cuts to keyframes and re-encode nothing, instead of re-encoding the frames between a cut and the next keyframe.")
    var keyframeCuts = false

    @Flag(help: "Write nothing; print what the export would write (without --fps the same plan `info` shows: frames, cuts, the fit; with --fps the encoder) and the warnings it would give.")
    var dryRun = false

    @Flag(help: "Without --fps: check the written movie against the export's plan (times, copied bytes, re-encoded frames' quality, streams, sync) and print one line of proof; a difference exits 1 and keeps the output as <name>.FAILED-VERIFY.<ext>.")
    var verify = false

    @Option(help: ArgumentHelp("For a transport stream with several programs (broadcast services): export program N, all of its streams and none of another's, the document's edits applied to it (default: the program the document plays, which `info` names).", valueName: "N"))
    var program: Int?

    @OptionGroup var audio: AudioOutputOptions

    /// The checks of export's own flags; -o, --format and the encoder's are ``EncodingOptions``'s.
    func validate() throws {
        let fps = encoding.fps
        if encoding.output == "-" && verify {
            throw ValidationError("--verify reads the written movie back, and standard output cannot be read back; write a file to verify it")
        }
        if dryRun && verify {
            throw ValidationError("--dry-run writes nothing, so there is nothing for --verify to check; leave one out")
        }
        if fps != nil && keyframeCuts {
            throw ValidationError("--keyframe-cuts applies to passthrough; --fps re-encodes every frame and cuts exactly")
        }
        if fps != nil && verify {
            throw ValidationError("--verify checks a passthrough export against its plan; --fps re-encodes every frame, so no packet is copied to compare (leave out --fps to verify)")
        }
        if quality != .fast && frames != .interpolate {
            throw ValidationError("--quality sets how motion is found for --frames interpolate; add --fps N --frames interpolate")
        }
        if crop != nil && zoom != nil { throw ValidationError("--crop and --zoom both choose the part of the picture exported; give one") }
        // What the flags say alone is checked here; whether it fits the picture, once the movie is opened (in run).
        do { _ = try reframing() } catch let error as CLIError { throw ValidationError(error.description) }
        if stabilizeBorders != nil && stabilize == nil { throw ValidationError("--stabilize-borders says how --stabilize fills the edges; add --stabilize") }
        if fps == nil && stabilize != nil {
            throw ValidationError("--stabilize re-encodes the picture; add --fps N (passthrough copies the pictures as they are)")
        }
        if fps == nil && frames != .nearest { throw ValidationError("--frames applies to re-encoding; add --fps N") }
    }

    func run() throws {
        LibAV.preload()
        let settings = try audio.settings()
        let url = try DocumentLocator.locate(options.document)
        let document = try DocumentStore.read(url)
        let source = try ExportChoice.source(document, at: url, program: program)
        if source.media.primaryVideo == nil {
            if encoding.fps != nil {
                throw CLIError("--fps sets a video frame rate, and \(document.movie.path) has no video; leave --fps out to export its audio (.m4a, .wav, .flac, .mp3 or .opus)")
            }
            if verify {
                throw CLIError("--verify checks a movie's passthrough export, and \(document.movie.path) has no video; leave --verify out to export its audio")
            }
            if encoding.output == "-" {
                throw CLIError("-o - streams a movie, and \(document.movie.path) has no video; write its audio to a file (-o song.flac)")
            }
            try exportAudio(source, document: document, at: url, settings: settings)
            return
        }
        // Whether the crop fits the picture, now that its size is known: before any work. (A zoom
        // always fits: it takes the middle 1/F.)
        if let crop, let video = source.media.primaryVideo, let width = video.width, let height = video.height,
           let misfit = try reframing()?.misfit(width: width, height: height) {
            throw UsageError("--crop \(crop) does not fit \(document.movie.path): \(misfit.reason); give a crop inside it, such as --crop \(misfit.fitting)")
        }
        if let options = try encoding.constantRate() {
            try exportConstantRate(options, source: source, document: document, at: url, settings: settings)
            return
        }
        var exporter = try PassthroughExporter(source: source,
                                               output: encoding.target(document) ?? DefaultOutput.movie(for: document, at: url),
                                               settings: settings, force: audio.force)
        exporter.exactTimeline = exact
        exporter.keyframeCuts = keyframeCuts
        exporter.verify = verify
        exporter.reframing = try reframing()
        let reporter = ProgressReporter(style: audio.progress, label: "export", mediaSeconds: source.timeline.duration.seconds)
        let shown = encoding.shown(exporter.output)
        if dryRun {
            let plan = try exporter.plan()
            for line in plan.warnings { reporter.warning(FlagAdvice.text(line)) }
            say("would write \(shown): \(Self.frames(plan.videoFrames, duration: plan.duration, exact: plan.exact, timescale: plan.timescale))"
                  + Self.cuts(plan.reencodedFrames, at: plan.reencodedCuts, reversals: plan.reencodedReversals, copied: plan.copiedFrames,
                              held: plan.heldFrames, black: plan.blackFrames))
            if let line = plan.fit?.line { say(line) }
            if let reframed = plan.reframed { say(reframed) }
            return
        }
        let result = try exporter.run(progress: { try reporter.update($0) }, warning: { reporter.warning(FlagAdvice.text($0)) })
        say("wrote \(shown): \(Self.frames(result.videoFrames, duration: result.duration, exact: result.exact, timescale: result.timescale)), "
              + Self.said(result.audio) + Self.cuts(result.reencodedFrames, at: result.reencodedCuts, reversals: result.reencodedReversals, copied: result.copiedFrames,
                                                           held: result.heldFrames, black: result.blackFrames))
        if let line = result.fit?.line { say(line) }
        if let line = result.verification?.line { say(line) }
        if let reframed = result.reframed { say(reframed) }
        reporter.done(output: StandardOutput.isStandardOutput(exporter.output) ? "-" : exporter.output.path, duration: result.duration.seconds)
    }

    /// `--crop` or `--zoom` as a ``Reframing``; nil for the whole picture.
    private func reframing() throws -> Reframing? {
        do { return try crop.map { try Reframing(crop: $0) } ?? zoom.map { try Reframing(zoom: $0) } } catch {
            throw CLIError("--\(crop != nil ? "crop" : "zoom"): \((error as? ExportError)?.description ?? "\(error)")")
        }
    }

    /// `66 frames, 2.745 s (every frame at its exact time)`.
    static func frames(_ count: Int, duration: Time, exact: Bool, timescale: Int32) -> String {
        "\(count) frames, \(duration.readable) (\(exact ? "every frame at its exact time" : "timestamps rounded to \(timescale) ticks a second"))"
    }

    /// `; 11 frames re-encoded at 2 cuts; 55 copied`, or nothing when no frame is re-encoded.
    static func cuts(_ reencoded: Int, at cuts: Int, reversals: Int, copied: Int, held: Int = 0, black: Int = 0) -> String {
        reencoded > 0 ? "; \(reencoded) frames re-encoded at \(places(cuts: cuts, reversals: reversals))\(stills(held: held, black: black)); \(copied) copied" : ""
    }

    /// How many of the re-encoded frames are freezes' held frames and gaps' black pictures
    /// (each shown for the freeze's or the gap's length): ` (3 held frames and 1 black for a gap among them)`.
    static func stills(held: Int, black: Int) -> String {
        let parts = [held > 0 ? "\(held) held frame\(held == 1 ? "" : "s")" : nil, black > 0 ? "\(black) black for \(black == 1 ? "a gap" : "gaps")" : nil]
        let said = parts.compactMap { $0 }.joined(separator: " and ")
        return said.isEmpty ? "" : " (\(said) among them)"
    }

    private func exportAudio(_ source: ExportSource, document: ProjectDocument, at url: URL, settings: TimePitchSettings) throws {
        var exporter = try AudioExporter(source: source,
                                         output: encoding.output.map { URL(fileURLWithPath: $0) } ?? DefaultOutput.audio(for: document, at: url),
                                         settings: settings, force: audio.force)
        exporter.exactTimeline = exact
        let reporter = ProgressReporter(style: audio.progress, label: "export", mediaSeconds: source.timeline.duration.seconds)
        let result = try exporter.run(progress: { try reporter.update($0) }, warning: { reporter.warning($0) })
        let shown = encoding.shown(exporter.output)
        say("wrote \(shown): \(result.duration.readable), \(result.sampleRate) Hz \(result.channels) \(result.codec), \(Self.said(result.audio))")
        if let line = result.fit?.line { print(line) }
        reporter.done(output: StandardOutput.isStandardOutput(exporter.output) ? "-" : exporter.output.path, duration: result.duration.seconds)
    }

    /// The `--fps` export: `encoded` (from ``EncodingOptions/constantRate()``) with the
    /// flags only `export` has (frames, crop or zoom, quality, stabilization).
    private func exportConstantRate(_ encoded: ConstantRateExporter.Options, source: ExportSource, document: ProjectDocument, at url: URL,
                                    settings: TimePitchSettings) throws {
        var options = encoded
        let fps = options.fps
        options.frames = frames
        options.reframing = try reframing()
        options.quality = quality
        do {
            options.stabilization = try stabilize.map { try Stabilization(strength: $0, borders: stabilizeBorders ?? .zoom, cache: Self.stabilizationCache(url),
                                                                          movieKey: Self.movieKey(document.movie.fingerprint)) }
        } catch { throw CLIError("--stabilize: \((error as? ExportError)?.description ?? "\(error)")") }
        let target = try encoding.target(options, source: source, document: document, at: url)
        var exporter = try ConstantRateExporter(source: source, output: target, options: options, settings: settings, force: audio.force)
        exporter.exactTimeline = exact
        let reporter = ProgressReporter(style: audio.progress, label: "export", mediaSeconds: source.timeline.duration.seconds)
        let shown = encoding.shown(exporter.output)
        if dryRun {
            let preview = try exporter.preview()
            for notice in preview.warnings { reporter.warning(FlagAdvice.text(notice)) }
            say(ExportChoice.wouldWrite(shown, fps: fps, duration: source.timeline.duration, encoder: preview.encoder))
            return
        }
        let result = try exporter.run(progress: { try reporter.update($0) }, warning: { reporter.warning(FlagAdvice.text($0)) })
        let encoder = Self.encoding(result.encoder)
        say("wrote \(shown): \(result.frames) frames at \(fps.shown) fps, \(result.duration.readable), \(encoder)\(result.reframed.map { ", \($0)" } ?? "")\(result.stabilized.map { ", \($0)" } ?? "")\(result.deinterlaced.map { ", deinterlaced (\($0))" } ?? ""), \(Self.said(result.audio))")
        if let line = result.fit?.line { say(line) }
        reporter.done(output: StandardOutput.isStandardOutput(exporter.output) ? "-" : exporter.output.path, duration: result.duration.seconds)
    }

    /// Where `--stabilize` keeps its analyses: `clip.slowpoke-stab` beside `clip.slowpoke`.
    static func stabilizationCache(_ document: URL) -> URL {
        URL(fileURLWithPath: document.deletingPathExtension().path + ".slowpoke-stab", isDirectory: true)
    }

    /// The movie's content as the analysis file names it: size, modification time, hash.
    static func movieKey(_ f: Fingerprint) -> String {
        Stabilization.movieKey(size: f.size, modified: f.modified, digest: f.sha256HeadTail)
    }

    /// `--stabilize` alone (no `=S`) as `--stabilize=10`: its value is optional.
    static func optionalValues(_ arguments: [String]) -> [String] {
        guard arguments.first == "export" else { return arguments }
        return arguments.map { $0 == "--stabilize" ? "--stabilize=\(Stabilization.defaultStrength)" : $0 }
    }

    /// The encoder as the summary names it: `h264 high level 3.0 crf 20 preset medium`.
    static func encoding(_ e: EncoderSettings) -> String {
        switch e.codec {
        case .h264, .hevc: "\(e.codec.rawValue) \(e.profile) level \(e.level) crf \(e.crf.formatted()) preset \(e.preset)"
        case .prores: "prores \(e.profile) \(e.pixelFormatName)"
        case .vp9: "vp9 \(e.pixelFormatName) crf \(e.crf.formatted()) preset \(e.preset)"
        }
    }

    /// A line of the summary: on standard output, or on standard error when the movie goes
    /// there (a `note` event under `--progress json`, where every stderr line is JSON).
    private func say(_ line: String) {
        guard encoding.output == "-" else { return print(line) }
        if Terminal.json { Terminal.note(line) } else { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Where frames were re-encoded: "2 cuts", "1 reversed range", "2 cuts and 1 reversed range".
    static func places(cuts: Int, reversals: Int) -> String {
        let parts = [cuts > 0 || reversals == 0 ? "\(cuts) cut\(cuts == 1 ? "" : "s")" : nil,
                     reversals > 0 ? "\(reversals) reversed range\(reversals == 1 ? "" : "s")" : nil]
        return parts.compactMap { $0 }.joined(separator: " and ")
    }

    /// What became of the audio, in plain words.
    static func said(_ audio: AudioHandling) -> String {
        switch audio {
        case .none: "no audio"
        case .copied: "audio copied as it was"
        case .spliced: "audio copied where unchanged, re-encoded where edited"
        case .rendered: "audio re-encoded through the timeline"
        }
    }
}

extension Stabilization.Borders: ExpressibleByArgument {}
