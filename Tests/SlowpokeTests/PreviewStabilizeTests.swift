import Foundation
import TestSupport
import Testing

/// `preview --stabilize` (issue 56): on ``StabilizeTests``' shaky clip (a still moved by a
/// seeded random walk plus jitter), the pictures the player shows (dumped as it presents them,
/// SLOWPOKE_PREVIEW_PICTURE_DUMP) move much less than the pictures it shows without
/// `--stabilize`, measured by block matching (``GlobalShift``), and are the pictures `export
/// --stabilize` writes for the same source pictures (bilinear against bicubic, and the encode).
/// The analysis is shared both ways with export. The pictures are the player's own dumps, not
/// timed: in PreviewScreenTests, beside the rest of the suite.
extension PreviewScreenTests {
    /// The pictures dumped under `prefix` (`steadied-` or `source-`), by source picture.
    static func dumped(_ folder: URL, prefix: String) throws -> [Int: [UInt8]] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).reduce(into: [:]) { pictures, name in
            guard name.hasPrefix(prefix), name.hasSuffix(".gray"), let index = Int(name.dropFirst(prefix.count).dropLast(5)) else { return }
            pictures[index] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
        }
    }

    /// The shifts between the dumped pictures of consecutive source pictures.
    static func motion(_ pictures: [Int: [UInt8]]) throws -> [(x: Double, y: Double)] {
        try pictures.keys.sorted().compactMap { i in
            guard let a = pictures[i], let b = pictures[i + 1] else { return nil }
            return try GlobalShift.between(a, b, width: StabilizeTests.width, height: StabilizeTests.height)
        }
    }

    /// Plays the whole clip with `flags`, dumping what it shows into `dump`; the player's stderr.
    func playDumping(_ flags: [String], dump: URL, in folder: TemporaryFolder, display: VirtualDisplay,
                     atTheEnd: (PreviewSession) throws -> Void = { _ in }) throws -> String {
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let session = try PreviewSession(["clip.slowpoke", "--play"] + flags, in: folder.url, display: display,
                                         environment: ["SLOWPOKE_PREVIEW_PICTURE_DUMP": dump.path, "SLOWPOKE_PREVIEW_FRAME_TIMES": "1"])
        try session.waitUntilReady()
        session.waitForClock(3.0, timeout: 30)
        usleep(300_000)
        try atTheEnd(session)
        let status = session.quit()
        #expect(status == 0, "\(flags): \(session.stderr())")
        return session.stderr()
    }

    @Test func stabilizedPreviewShowsSteadyPicturesAsExportWritesThem() throws {
        let folder = try TemporaryFolder("preview-stabilize")
        try StabilizeTests.shakyClip(in: folder)
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "clip.mp4"], in: folder.url).status == 0)
        let display = try VirtualDisplay()
        // No analysis kept yet: the preview makes it (and says so), then plays steadied.
        // At the end, j seeks back to the start: the transform starts again from picture 0, and
        // gives the same picture 0 as the first time.
        var firstPicture = Data()
        let said = try playDumping(["--stabilize"], dump: folder.file("steady"), in: folder, display: display) { session in
            let zero = folder.file("steady").appendingPathComponent("steadied-0.gray")
            firstPicture = try Data(contentsOf: zero)
            try FileManager.default.removeItem(at: zero)
            try session.press("j")
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && !FileManager.default.fileExists(atPath: zero.path) { usleep(50_000) }
            usleep(200_000)
        }
        #expect(said.contains("stabilized (strength 10, zoomed to hide the edges; analysis made and kept in clip.slowpoke-stab)"), "\(said)")
        #expect(said.contains("; 1 restarts"), "\(said)")
        #expect(!firstPicture.isEmpty && (try? Data(contentsOf: folder.file("steady").appendingPathComponent("steadied-0.gray"))) == firstPicture,
                "picture 0 steadied again after the restart differs")
        // Each session gets a display of its own: a session started on the display another has just
        // quit with q sometimes ended at once, with status 0 (1 run in 6), as if q were pressed again.
        let plainSaid = try playDumping([], dump: folder.file("plain"), in: folder, display: try VirtualDisplay())
        let steady = try Self.dumped(folder.file("steady"), prefix: "steadied-")
        let plain = try Self.dumped(folder.file("plain"), prefix: "source-")
        let (steadyMotion, plainMotion) = (try Self.motion(steady), try Self.motion(plain))
        // At 30 fps on a loaded machine some pictures are passed over; most pairs are measured.
        #expect(steadyMotion.count >= 20 && plainMotion.count >= 20, "\(steadyMotion.count) and \(plainMotion.count) pairs measured")
        let (sSteady, sPlain) = (StabilizeTests.deviation(steadyMotion), StabilizeTests.deviation(plainMotion))
        let cost = said.split(separator: "\n").first { $0.contains("steadying:") } ?? "no steadying figures"
        print(String(format: "preview --stabilize: motion deviation on screen %.3f px steadied, %.3f px as filmed (%.1f%%); %@",
                     sSteady, sPlain, 100 * sSteady / sPlain, String(cost)))
        #expect(sPlain > 3, "\(plainSaid)")
        #expect(sSteady <= 0.3 * sPlain, "steadied \(sSteady) px against \(sPlain) px as filmed")

        // Export reuses the preview's analysis; its frames are the preview's pictures.
        let export = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--stabilize", "-o", "out.mp4", "--progress", "none"], in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("analysis reused"), "\(export.stdout)")
        let exported = try StabilizeTests.greyFrames(folder.file("out.mp4"), in: folder)
        #expect(exported.count == StabilizeTests.frames)
        // Steadied pictures all look alike, so the check is against the picture as filmed: the
        // preview's is export's (aligned with it, and nearer to it than the source picture is),
        // bilinear against bicubic (on this noise texture some 27 dB, measured).
        let filmed = try StabilizeTests.greyFrames(folder.file("clip.mp4"), in: folder)
        var (compared, worst) = (0, (same: Double.infinity, asFilmed: 0.0))
        for i in steady.keys.sorted() where i % 7 == 3 && i < exported.count {
            let same = StillCommandTests.psnr(Data(steady[i]!), Data(exported[i]))
            let asFilmed = StillCommandTests.psnr(Data(filmed[i]), Data(exported[i]))
            let shift = try GlobalShift.between(steady[i]!, exported[i], width: StabilizeTests.width, height: StabilizeTests.height)
            #expect(same > 25 && same > asFilmed + 1.5 && abs(shift.x) <= 0.5 && abs(shift.y) <= 0.5,
                    "picture \(i): \(same) dB against export's (shifted \(shift)), the source picture \(asFilmed) dB")
            compared += 1
            worst = (min(worst.same, same), max(worst.asFilmed, asFilmed))
        }
        print(String(format: "preview --stabilize: against export's pictures, the worst %.1f dB (the source pictures at best %.1f dB)", worst.same, worst.asFilmed))
        #expect(compared >= 6, "\(compared) pictures compared with the export's")

        // An analysis export made is the preview's too.
        try FileManager.default.removeItem(at: folder.file("clip.slowpoke-stab"))
        let made = try TestSupport.run(TestSupport.slowpoke, ["export", "--fps", "30", "--stabilize=20", "-o", "again.mp4", "--progress", "none"], in: folder.url)
        #expect(made.stdout.contains("analysis made"), "\(made.stdout)")
        let session = try PreviewSession(["clip.slowpoke", "--stabilize=20", "--stabilize-borders", "keep"], in: folder.url, display: try VirtualDisplay())
        try session.waitUntilReady()
        // The status says whether the picture is steadied; v switches (each read once the status
        // says it, or after 5 s: the checks below then fail).
        let before = session.waitForTitle { $0.contains("steadied") }
        try session.press("v")
        let after = session.waitForTitle { $0.contains("not steadied") }
        #expect(before.contains("steadied") && !before.contains("not steadied"), "\(before)")
        #expect(after.contains("not steadied"), "\(after)")
        #expect(session.quit() == 0)
        #expect(session.stderr().contains("stabilized (strength 20, edges kept unzoomed; analysis reused)"), "\(session.stderr())")
    }

    /// SIGTERM while the preview makes the analysis: exit 130, no window, nothing kept; q from
    /// a terminal: exit 0, nothing kept.
    @Test func stoppingTheAnalysisKeepsNothing() throws {
        let folder = try TemporaryFolder("preview-stabilize-stop")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=40",
                                                   "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", folder.file("long.mp4").path])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try TestSupport.run(TestSupport.slowpoke, ["open", "long.mp4"], in: folder.url).status == 0)
        let display = try VirtualDisplay()
        let session = try PreviewSession(["long.slowpoke", "--stabilize"], in: folder.url, display: display)
        // The analysis says how far it is in plain lines (stderr is not a terminal): wait for the first.
        let cache = folder.file("long.slowpoke-stab")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && !FileManager.default.fileExists(atPath: cache.path) { usleep(50_000) }
        usleep(500_000)
        #expect(session.process.isRunning, "the analysis ended before it could be stopped: \(session.stderr())")
        kill(session.process.processIdentifier, SIGTERM)
        session.process.waitUntilExit()
        #expect(session.process.terminationStatus == 130, "\(session.stderr())")
        #expect(session.stderr().contains("interrupted"), "\(session.stderr())")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        #expect(left.isEmpty, "left in the cache: \(left)")

        // q typed at the terminal (script(1) gives the preview one): exit 0, nothing played or kept.
        try FileManager.default.removeItem(at: cache)
        let quitting = Process()
        quitting.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        quitting.arguments = ["-qfec", "'\(TestSupport.slowpoke.path)' preview long.slowpoke --stabilize", "/dev/null"]
        quitting.currentDirectoryURL = folder.url
        let (input, output) = (Pipe(), Pipe())
        (quitting.standardInput, quitting.standardOutput, quitting.standardError) = (input, output, output)
        try quitting.run()
        let started = Date().addingTimeInterval(20)
        while Date() < started && !FileManager.default.fileExists(atPath: cache.path) { usleep(50_000) }
        usleep(500_000)
        #expect(quitting.isRunning, "the analysis ended before q")
        input.fileHandleForWriting.write(Data("q".utf8))
        quitting.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(quitting.terminationStatus == 0, "\(said)")
        #expect(said.contains("stopped before playing; the stabilization analysis was not finished, so nothing of it is kept"), "\(said)")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        #expect(kept.isEmpty, "left in the cache after q: \(kept)")
    }
}
