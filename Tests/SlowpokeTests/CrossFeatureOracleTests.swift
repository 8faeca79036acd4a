import Foundation
import TestSupport
import Testing

/// A cross-feature oracle (issue 50, item 5): seeded random sources (``OracleSource``) ×
/// random edit sequences (``OracleEdits``) × export modes (``OracleMode``), every output
/// checked independently of the code that made it (``OracleCase``'s checks): exit status, a
/// clean decode, passthrough frames that are the source's own (re-encoded ones within `info`'s
/// count and >= 45 dB), the default export and `--exact` showing the same frames, frame counts
/// from the timeline alone, `info --json`'s cut counts against the export's, two exports with
/// the same packets, an OTIO round trip that gives back the timeline, the beeps where the
/// timeline puts them, a second decoder (OpenH264, libde265) agreeing with FFmpeg, and the
/// camera and broadcast shapes' metadata and programs (``OracleCase/checkShape(_:firstFrame:)``).
///
/// Refusals (exit 1 with `slowpoke: error:`) are recorded and not counted as checked; a
/// refusal of the default export that `info` did not foresee fails. At least 60 % of the cases
/// must be checked. `make test-long` runs 68 cases (about 64 checked); `make test` the first of
/// them to bring each shape and each mode (with and without `--exact`) the 68 have; `SLOWPOKE_FUZZ=N`
/// runs N cases; `SLOWPOKE_SEED=0x…` replays the one a failure names, with the commands it printed.
@Suite(.serialized) struct CrossFeatureOracleTests {
    @Test func seededCasesAgreeWithTheOracle() async throws {
        let run = OracleRun(defaultCases: 68, quick: !TestTier.isLong)
        let sources = try OracleSourceCache()
        let decoders = try OracleDecoders(in: sources.folder)
        let started = Date()
        // Two cases at a time (SLOWPOKE_ORACLE_JOBS): one waits on its slowpoke or ffmpeg while
        // the other's runs.
        let jobs = ProcessInfo.processInfo.environment["SLOWPOKE_ORACLE_JOBS"].flatMap(Int.init) ?? 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, jobs) {
                group.addTask {
                    while let seed = run.takeSeed() {
                        let oracleCase = try OracleCase(seed: seed, run: run, sources: sources, decoders: decoders)
                        do {
                            try oracleCase.perform()
                        } catch {
                            oracleCase.fail("harness", "the case stopped: \(error)")
                        }
                        oracleCase.keepIfFailed()
                    }
                }
            }
            try await group.waitForAll()
        }
        print(run.summary + "  sources: " + sources.names.joined(separator: " ") + String(format: "\n  %.1f s", Date().timeIntervalSince(started)))
        let needed = Int((Double(run.seeds.count) * 0.6).rounded(.up))
        #expect(run.checked >= needed, "only \(run.checked) of \(run.seeds.count) cases were checked (\(run.refused.count) refused)")
    }
}

/// The second decoders: OpenH264 (built from Tests/Decoders/openh264-decode.c by SmartCutTests'
/// helper) and libde265's `dec265`, where installed.
struct OracleDecoders: Sendable {
    let openH264: URL?
    let dec265: URL?

    init(in folder: TemporaryFolder) throws {
        openH264 = try? SmartCutTests.buildOpenH264(in: folder)
        dec265 = FileManager.default.isExecutableFile(atPath: HEVCSmartCutTests.dec265.path) ? HEVCSmartCutTests.dec265 : nil
    }
}

/// One case: its source, mode, folder and commands.
final class OracleCase: @unchecked Sendable {
    // @unchecked: one test's thread uses it.
    let seed: UInt64
    let run: OracleRun
    let facts: OracleSourceFacts
    let source: OracleSource
    let mode: OracleMode
    /// `--exact` added to a constant-rate or audio-only export.
    let exactFlag: Bool
    let editCount: Int
    let decoders: OracleDecoders
    let folder: TemporaryFolder
    let shell: OracleShell
    let document = "m.slowpoke"
    var timeline: OracleTimeline?
    var failed = false
    /// What ``OracleDecode/beeps(_:)`` heard in each file of the case, by path: a file's sound
    /// is decoded and probed once however many checks read it (an audio-only case read its
    /// output twice and its song twice).
    var heard: [String: OracleDecode.Beeps] = [:]

    init(seed: UInt64, run: OracleRun, sources: OracleSourceCache, decoders: OracleDecoders) throws {
        self.seed = seed
        self.run = run
        source = OracleSource(seed: seed)
        var g = SplitMix64(state: seed)
        mode = OracleMode.pick(&g, source: source)
        exactFlag = Int.random(in: 0..<2, using: &g) == 0
        editCount = Int.random(in: 1...4, using: &g)
        facts = try sources.facts(source)
        self.decoders = decoders
        folder = try TemporaryFolder("oracle-case")
        shell = OracleShell(folder: folder.url)
    }

    /// Copies a failed case's folder (document, outputs) to `.build/oracle-failures/0x<seed>`.
    func keepIfFailed() {
        guard failed else { return }
        let kept = TestSupport.root.appendingPathComponent(".build/oracle-failures/0x\(String(seed, radix: 16))")
        try? FileManager.default.removeItem(at: kept)
        try? FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.copyItem(at: folder.url, to: kept)
    }

    func fail(_ check: String, _ message: String) {
        failed = true
        run.fail(check, "\(source.name), \(mode)\(exactFlag && !mode.isPassthrough ? " --exact" : ""): \(message)", seed: seed, commands: shell.commands)
    }

    func perform() throws {
        shell.note("source (OracleSource shape \(source.shape)): ffmpeg testsrc2 \(source.width)x\(source.height) \(source.fps) fps \(source.seconds) s "
                   + (source.videoArguments + source.audioArguments).joined(separator: " "))
        let movie = try prepareMovie()
        let opened = try shell.slowpoke(["open", movie])
        guard opened.status == 0 else { return fail("open", "exit \(opened.status): \(opened.stderr)") }
        try edit()
        let info = try shell.slowpoke(["info", document, "--json", "--frames"])
        guard info.status == 0 else { return fail("info", "exit \(info.status): \(info.stderr)") }
        let timeline = try OracleTimeline(json: info.stdout)
        self.timeline = timeline
        checkShapeInfo(timeline)
        let verified = try shell.slowpoke(["verify", document])
        if verified.status != 0 { fail("verify", "exit \(verified.status): \(verified.stderr)") }
        try checkOTIORoundTrip(timeline)
        switch mode {
        case .passthrough, .exact, .keyframeCuts: try checkPassthrough(timeline)
        case .constantRate(let fps, _): try checkConstantRate(timeline, fps: fps)
        case .audioOnly: try checkAudioOnly(timeline)
        }
    }

    /// The movie in the case's folder, as `m.<ext>`: the source, or its audio alone as a song.
    func prepareMovie() throws -> String {
        guard case .audioOnly(let ext) = mode else {
            let name = "m.\(source.container)"
            try FileManager.default.copyItem(at: facts.movie, to: folder.file(name))
            return name
        }
        let name = "m.\(ext)"
        let codec = ext == "m4a" ? ["-c:a", "copy"] : ["-c:a", "pcm_s16le"]
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", facts.movie.path, "-vn", "-map", "0:a:0"] + codec + ["-y", folder.file(name).path])
        guard made.status == 0 else { throw OracleFailure("making the song: \(made.stderr)") }
        shell.note("song: ffmpeg -i <source> -vn \(codec.joined(separator: " ")) \(name)")
        return name
    }

    /// The timeline's length now, from `info --json`.
    func length() throws -> Double {
        let info = try shell.slowpoke(["info", document, "--json"], log: false)
        guard info.status == 0 else { throw OracleFailure("info --json failed: \(info.stderr)") }
        return try OracleTimeline(json: info.stdout).duration
    }

    /// `editCount` random edits; one refused (exit 1) is kept in the commands and skipped.
    func edit() throws {
        var edits = OracleEdits(seed: seed, fps: source.fps)
        for _ in 0..<editCount {
            let arguments = edits.next(length: try length())
            let result = try shell.slowpoke([arguments[0], document] + arguments.dropFirst())
            if result.status != 0 && (result.status != 1 || OracleRun.refusal(result.stderr) == nil) {
                fail("edit exit status", "\(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
            }
        }
    }

    /// `otio export`, then `otio import` of that file: the same segments (to the microsecond).
    func checkOTIORoundTrip(_ timeline: OracleTimeline) throws {
        run.ran("otio round trip"); run.ran("otio export"); run.ran("otio import")
        let exported = try shell.slowpoke(["otio", "export", document, "-o", "x.otio"])
        guard exported.status == 0 else { return fail("otio export", "exit \(exported.status): \(exported.stderr)") }
        let imported = try shell.slowpoke(["otio", "import", "x.otio", "-o", "y.slowpoke"])
        // slowpoke's own file carries the edits that made it (OTIORecordedEditsTests), so even a
        // timeline whose remove/scale replay needs a time beyond a 32-bit timescale imports:
        // a refusal here fails (the 400-case run of 2026-11-29 00:15 refused 12).
        guard imported.status == 0 else { return fail("otio import", "exit \(imported.status): \(imported.stderr)") }
        let info = try shell.slowpoke(["info", "y.slowpoke", "--json"])
        guard info.status == 0 else { return fail("otio import", "info of the import: \(info.stderr)") }
        let back = try OracleTimeline(json: info.stdout)
        if back.rows != timeline.rows {
            let first = zip(back.rows, timeline.rows).first { $0 != $1 }
            fail("otio round trip", "\(timeline.rows.count) segments became \(back.rows.count); first difference: \(first.map { "\($0.1) became \($0.0)" } ?? "in count")")
        }
    }
}
