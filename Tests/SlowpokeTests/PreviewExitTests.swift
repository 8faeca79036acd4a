import Foundation
import TestSupport
import Testing

/// A clean exit (issue 26, item 4): Ctrl-C and SIGTERM end the preview with status 130, put the
/// terminal back as it was, and leave the document byte for byte as it was. No time is measured:
/// in PreviewScreenTests, beside the rest of the suite.
extension PreviewScreenTests {
    /// `--no-video` on a real pseudo-terminal (so raw mode applies), stopped by a Ctrl-C typed
    /// into the terminal, by `kill -INT` and by `kill -TERM`. `stty -g` of that terminal is
    /// read before, while the preview runs (raw: it must differ) and after (it must match).
    @Test(arguments: ["ctrl-c", "SIGINT", "SIGTERM"])
    func anInterruptedTerminalPreviewExits130AndRestoresTheTerminal(_ how: String) throws {
        let folder = try TemporaryFolder("preview-exit")
        let clip = try folder.copy(media: "clip60.mp4")
        let document = try Self.editedDocument(for: clip, in: folder)
        let before = try Data(contentsOf: document)
        let run = try PseudoTerminalRun.run(["preview", document.path, "--no-video", "--play"], in: folder.url,
                                            stop: how, audio: folder.file("heard.raw"))
        #expect(run.ready, "the preview never started playing; terminal said: \(run.output)")
        #expect(run.status == 130, "exit status \(run.status); terminal said: \(run.output)")
        #expect(run.output.contains("slowpoke: error: interrupted"), "terminal said: \(run.output)")
        #expect(run.during != run.before, "the preview did not put the terminal in raw mode (stty -g \(run.during))")
        #expect(run.after == run.before, "terminal not restored: stty -g was \(run.before), is \(run.after)")
        #expect(try Data(contentsOf: document) == before, "the document changed")
        let stray = try Self.strayFiles(in: folder)
        #expect(stray.isEmpty, "left behind: \(stray)")
    }

    /// Keys typed while `--no-video` starts (issue 54) are neither echoed by the terminal nor
    /// played once it has started: `Z` does not appear, and `c` does not turn chipmunk on.
    @Test func keysTypedWhileStartingAreNeitherEchoedNorPlayed() throws {
        let folder = try TemporaryFolder("preview-early")
        let clip = try folder.copy(media: "clip60.mp4")
        let document = try Self.editedDocument(for: clip, in: folder)
        let run = try PseudoTerminalRun.run(["preview", document.path, "--no-video", "--play"], in: folder.url,
                                            stop: "early-SIGTERM", audio: folder.file("heard.raw"))
        #expect(run.ready && run.status == 130, "status \(run.status); terminal said: \(run.output)")
        #expect(run.output.contains("▶  1x") && run.output.contains("spectral"), "terminal said: \(run.output)")
        #expect(!run.output.contains("Z"), "the typed key was echoed: \(run.output)")
        #expect(!run.output.contains("varispeed"), "the key typed while starting was played: \(run.output)")
    }

    /// With a window under Xvfb, SIGTERM and SIGINT end the preview with 130 and the document as
    /// it was. Started through Foundation's Process, the player begins with both signals
    /// blocked (before the fix it then ignored them and had to be killed).
    @Test(arguments: [SIGTERM, SIGINT])
    func anInterruptedWindowPreviewExits130(_ signal: Int32) throws {
        let folder = try TemporaryFolder("preview-exit-video")
        let clip = try folder.copy(media: "clip60.mp4")
        let document = try Self.editedDocument(for: clip, in: folder)
        let before = try Data(contentsOf: document)
        let display = try VirtualDisplay()
        let session = try PreviewSession([document.path, "--play"], in: folder.url, display: display)
        try session.waitUntilReady()
        usleep(100_000)
        kill(session.process.processIdentifier, signal)
        let status = session.waitForExit()
        let stderr = session.stderr()
        #expect(status == 130, "stderr: \(stderr)")
        #expect(stderr.contains("slowpoke: error: interrupted"), "stderr: \(stderr)")
        #expect(try Data(contentsOf: document) == before, "the document changed")
        let stray = try Self.strayFiles(in: folder)
        #expect(stray.isEmpty, "left behind: \(stray)")
    }

    /// Quitting (here: killing) the player right after Enter leaves either the old or the new
    /// document, whole, never a broken one.
    @Test func killingThePlayerDuringASaveLeavesADocument() throws {
        let folder = try TemporaryFolder("preview-kill")
        let clip = try folder.copy(media: "clip60.mp4")
        let display = try VirtualDisplay()
        let session = try PreviewSession([clip.path, "--rate", "0.5", "--play"], in: folder.url, display: display)
        try session.waitUntilReady()
        try session.press("bracketleft")
        // Once the player has marked the start (the status ends with it), 0.4 s of play to mark.
        _ = session.waitForTitle { $0.hasSuffix(" –") }
        usleep(400_000)
        try session.press("bracketright", "Return")
        usleep(UInt32.random(in: 0..<40_000))
        kill(session.process.processIdentifier, SIGKILL)
        session.process.waitUntilExit()
        let history = try TestSupport.run(TestSupport.slowpoke, ["history", "clip60.slowpoke"], in: folder.url)
        #expect(history.status == 0, "\(history.stderr)")
        let documents = try folder.listing().filter { $0.hasSuffix(".slowpoke") }
        #expect(documents == ["clip60.slowpoke"])
        // Either no edit (killed before the rename) or the whole edit.
        #expect(history.stdout == "no edits yet\n" || history.stdout.contains("0.5x"), "\(history.stdout)")
    }

    /// clip.slowpoke with one scale edit, so the document has a history to lose.
    static func editedDocument(for clip: URL, in folder: TemporaryFolder) throws -> URL {
        let open = try TestSupport.run(TestSupport.slowpoke, ["open", clip.path], in: folder.url)
        try #require(open.status == 0, "open: \(open.stderr)")
        let scale = try TestSupport.run(TestSupport.slowpoke, ["scale", "--range", "0.5-1", "--rate", "0.5"], in: folder.url)
        try #require(scale.status == 0, "scale: \(scale.stderr)")
        return clip.deletingPathExtension().appendingPathExtension("slowpoke")
    }

    /// Files in `folder` other than the clip, its document, the captured audio and the player's
    /// clock log: a temporary document would mean a save was cut short.
    static func strayFiles(in folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { !["clip60.mp4", "clip60.slowpoke", "heard.raw"].contains($0) && !$0.hasPrefix("clock-") }
    }
}

/// Runs slowpoke on a fresh pseudo-terminal, as its controlling terminal and foreground process
/// group (so a typed Ctrl-C is a real SIGINT from the line discipline), through a small python3
/// driver: it waits for the disk audio to flow, stops the player, and reads `stty -g` on the
/// terminal before, during and after.
enum PseudoTerminalRun {
    struct Outcome {
        var status: Int32
        var ready: Bool
        var before: String
        var during: String
        var after: String
        var output: String
    }

    static let driver = #"""
        import fcntl, json, os, select, signal, subprocess, sys, termios, time
        slowpoke, audio, how = sys.argv[1], sys.argv[2], sys.argv[3]
        args = sys.argv[4:]
        master, slave = os.openpty()
        def stty():
            return subprocess.run(["stty", "-g"], stdin=slave, capture_output=True, text=True).stdout.strip()
        before = stty()
        env = dict(os.environ, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=audio, SWIFT_BACKTRACE="enable=no")
        env.pop("DISPLAY", None)
        pid = os.fork()
        if pid == 0:
            # As from an interactive shell: the signals arrive (Foundation's Process blocks them
            # in its children; the window test below keeps that case).
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.close(master)
            os.execve(slowpoke, [slowpoke] + args, env)
        output = b""
        def drain(seconds):
            global output
            end = time.time() + seconds
            while True:
                left = end - time.time()
                if left <= 0:
                    return
                ready, _, _ = select.select([master], [], [], left)
                if ready:
                    try:
                        output += os.read(master, 4096)
                    except OSError:
                        return
        if how.startswith("early-"):
            # Keys typed while the preview starts: once the terminal is in raw mode (the player
            # is being made), before the audio flows.
            how = how[len("early-"):]
            end = time.time() + 10
            while stty() == before and time.time() < end:
                drain(0.005)
            os.write(master, b"Zc")
        deadline = time.time() + 30
        ready = False
        while time.time() < deadline:
            drain(0.05)
            if os.path.exists(audio) and os.path.getsize(audio) > 48000 * 8 // 2:
                ready = True
                break
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                print(json.dumps({"status": -1, "ready": False, "before": before, "during": "", "after": "",
                                  "output": output.decode("utf-8", "replace")}))
                sys.exit(0)
        during = stty()
        if how == "ctrl-c":
            os.write(master, b"\x03")
        else:
            os.kill(pid, getattr(signal, how))
        status = None
        deadline = time.time() + 15
        while status is None:
            drain(0.05)
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
            elif time.time() > deadline:
                os.kill(pid, signal.SIGKILL)
                status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        drain(0.1)
        after = stty()
        print(json.dumps({"status": status, "ready": ready, "before": before, "during": during, "after": after,
                          "output": output.decode("utf-8", "replace")}))
        """#

    static func run(_ arguments: [String], in folder: URL, stop how: String, audio: URL) throws -> Outcome {
        let script = folder.appendingPathComponent("pty-driver.py")
        try driver.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let result = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["python3", script.path, TestSupport.slowpoke.path, audio.path, how] + arguments,
                                         in: folder)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else { throw PreviewSession.Failure(message: "pty driver failed (\(result.status)): \(result.stderr)") }
        return Outcome(status: Int32(object["status"] as? Int ?? -2), ready: object["ready"] as? Bool ?? false,
                       before: object["before"] as? String ?? "", during: object["during"] as? String ?? "",
                       after: object["after"] as? String ?? "", output: object["output"] as? String ?? "")
    }
}
