import Foundation
import TestSupport
import Testing

/// Freezes and gaps beside or inside re-encoded spans export in passthrough (issue 55, item 2):
/// the README's examples, in order (ramp, freeze, reverse, remove, insert-gap), on 12 s, 30 fps
/// testsrc2 clips with a 440 Hz tone that ffmpeg makes at test time (H.264 and HEVC, three
/// B-frames, open GOPs), export with plain `export`. Checked independently of the export: the
/// frames the document's timeline shows (each source segment's frames, backwards when
/// reversed; a freeze's frame once; a gap black) are the plan's (`info --json --frames`) and the
/// file's: copied frames decode to the source frame's MD5, held and other re-encoded frames to
/// 45 dB or better of it, gap frames black; the audio is silent in the gap; the file lasts the
/// plan's length, decodes with `-xerror`, and a second export writes the same packets.
@Suite(.serialized) struct StillsPassthroughTests {
    static let width = 320, height = 240, rate = 30, seconds = 12
    static let frameBytes = width * height * 3 / 2
    /// The README's examples, in order, after `open`.
    static let edits = [["ramp", "--range", "2-4", "--from", "1", "--to", "0.25"], ["freeze", "--at", "3.2", "--duration", "2"],
                        ["reverse", "--range", "2-4"], ["remove", "--range", "9-end"], ["insert-gap", "--at", "5", "--duration", "2"]]
    static let shapes: [(name: String, args: [String])] = [
        ("h264.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-g", "48", "-bf", "3", "-x264-params", "open-gop=1:scenecut=0", "-pix_fmt", "yuv420p"]),
        ("hevc.mp4", ["-c:v", "libx265", "-preset", "veryfast", "-x265-params", "keyint=48:min-keyint=48:bframes=3:open-gop=1:scenecut=0:log-level=error",
                      "-tag:v", "hvc1", "-pix_fmt", "yuv420p"]),
    ]

    static func make(_ name: String, _ args: [String], in folder: TemporaryFolder) throws -> URL {
        let source = folder.file(name)
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)",
                                                   "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=\(seconds)"] + args
                                        + ["-c:a", "aac", "-b:a", "128k", "-shortest", source.path])
        try #require(made.status == 0, "\(made.stderr)")
        return source
    }

    static func slowpoke(_ arguments: [String], in folder: TemporaryFolder) throws -> TestSupport.Result {
        try TestSupport.run(TestSupport.slowpoke, arguments, in: folder.url)
    }

    /// `3/4`, `2.8`, `11` in seconds.
    static func seconds(_ value: Any?) -> Double {
        let parts = (value as? String ?? "").split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 ? parts[0] / parts[1] : parts.first ?? .nan
    }

    /// The source frame each output frame shows by the document's video segments (-1: black).
    static func expectedFrames(_ segments: [[String: Any]]) -> [Int] {
        var frames: [Int] = []
        for segment in segments {
            if let source = segment["source"] as? [String: Any] {
                let start = seconds(source["start"]), end = start + seconds(source["duration"])
                let inside = (0..<rate * seconds).filter { Double($0) / Double(rate) >= start - 1e-9 && Double($0) / Double(rate) < end - 1e-9 }
                frames += segment["reverse"] as? Bool == true ? inside.reversed() : inside
            } else if let held = segment["hold"] {
                frames.append(Int((seconds(held) * Double(rate) + 1e-9).rounded(.down)))
            } else {
                frames.append(-1)
            }
        }
        return frames
    }

    static func pictures(_ file: URL, in folder: TemporaryFolder) throws -> (frames: [Data], errors: String) {
        let raw = folder.file("decoded-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                     "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", raw.path])
        let data = try Data(contentsOf: raw)
        let frames = stride(from: 0, to: data.count - frameBytes + 1, by: frameBytes).map { data.subdata(in: $0 ..< $0 + frameBytes) }
        return (frames, result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)")
    }

    /// Whether a yuv420p picture is black: luma at most 20, chroma neutral.
    static func isBlack(_ picture: Data) -> Bool {
        let luma = width * height
        return picture.prefix(luma).allSatisfy { $0 <= 20 } && picture.dropFirst(luma).allSatisfy { (124...132).contains($0) }
    }

    /// Every packet's MD5 of every stream, in file order.
    static func packets(_ file: URL) throws -> [String] {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    @Test(arguments: shapes.map(\.name)) func theREADMEExamplesExportInPassthrough(name: String) throws {
        let folder = try TemporaryFolder("stills-passthrough")
        let shape = try #require(Self.shapes.first { $0.name == name })
        let source = try Self.make("clip.mp4", shape.args, in: folder)
        for edit in [["open", "clip.mp4"]] + Self.edits {
            let done = try Self.slowpoke(edit, in: folder)
            try #require(done.status == 0, "\(edit): \(done.stderr)")
        }
        let info = try Self.slowpoke(["info", "--json", "--frames"], in: folder)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any], "\(info.stderr)")
        let plan = try #require(json["exportPlan"] as? [String: Any], "no plan: \(json["exportRefusal"] ?? "")")
        let planned = try #require(plan["frames"] as? [[String: Any]])
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        let video = try #require(tracks.first { $0["mediaType"] as? String == "video" }?["segments"] as? [[String: Any]])

        // The plan shows what the document's timeline shows, frame for frame.
        let expected = Self.expectedFrames(video)
        let plannedSources = planned.map { $0["black"] as? Bool == true ? -1 : Int((Self.seconds($0["source"]) * Double(Self.rate)).rounded()) }
        #expect(plannedSources == expected, "\(name): the plan shows \(plannedSources), the timeline \(expected)")
        let held = planned.count { $0["held"] as? Bool == true }, black = planned.count { $0["black"] as? Bool == true }
        #expect(held == 3 && black == 1, "\(name): \(held) held frames and \(black) black planned")
        #expect(plan["heldFrames"] as? Int == held && plan["blackFrames"] as? Int == black, "\(plan)")

        // Plain export: passthrough, the counts info and --dry-run gave.
        let dryRun = try Self.slowpoke(["export", "--dry-run"], in: folder)
        let export = try Self.slowpoke(["export", "-o", "slow.mp4", "--progress", "none"], in: folder)
        try #require(export.status == 0, "\(name): \(export.stderr)")
        print("\(name): \(export.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        let counts = ["\(planned.count) frames", "\(plan["reencodedFrames"] as? Int ?? -1) frames re-encoded", "\(plan["copiedFrames"] as? Int ?? -1) copied",
                      "3 held frames and 1 black for a gap among them"]
        for said in counts {
            #expect(export.stdout.contains(said) && dryRun.stdout.contains(said), "\(name): '\(said)' not in \(export.stdout) / \(dryRun.stdout)")
        }
        let output = folder.file("slow.mp4")

        // Frame by frame against the source.
        let (sourcePictures, sourceErrors) = try Self.pictures(source, in: folder)
        try #require(sourceErrors.isEmpty && sourcePictures.count == Self.rate * Self.seconds, "\(sourceErrors)")
        let (pictures, errors) = try Self.pictures(output, in: folder)
        #expect(errors.isEmpty, "\(name): ffmpeg -xerror says \(errors)")
        try #require(pictures.count == expected.count, "\(name): \(pictures.count) frames decoded, \(expected.count) expected")
        let sourceMD5s = try TestSupport.frameMD5s(source).md5s, md5s = try TestSupport.frameMD5s(output).md5s
        try #require(md5s.count == expected.count && sourceMD5s.count == sourcePictures.count)
        var copied = 0, stills = 0, worst = Double.infinity
        for (k, frame) in planned.enumerated() {
            let shows = expected[k]
            if shows < 0 {
                #expect(Self.isBlack(pictures[k]), "\(name): output frame \(k) (a gap) is not black")
                stills += 1
            } else if frame["reencoded"] as? Bool == false {
                #expect(md5s[k] == sourceMD5s[shows], "\(name): copied output frame \(k) is not source frame \(shows)")
                copied += 1
            } else {
                let quality = SmartCutTests.psnr(pictures[k], sourcePictures[shows])
                worst = min(worst, quality)
                #expect(quality >= 45, "\(name): output frame \(k) is \(quality) dB from source frame \(shows)")
                if frame["held"] as? Bool == true { stills += 1 }
            }
        }
        try Self.aSecondDecoderAgrees(output, source: source, name: name, pictures: pictures, in: folder)
        print("\(name): \(copied) frames copied byte-exact, \(stills) stills, re-encoded ones at \(worst) dB at the worst")
        #expect(copied >= 60 && stills == 4, "\(name): \(copied) copied, \(stills) stills checked")

        // Each frame at its planned time; a still lasts its freeze or gap.
        let probed = try TestSupport.ffprobe(output, ["-select_streams", "v:0", "-show_entries", "packet=pts_time:format=duration"])
        let times = (probed["packets"] as? [[String: Any]] ?? []).compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
        let plannedTimes = planned.map { Self.seconds($0["time"]) }
        #expect(times.count == plannedTimes.count && zip(times, plannedTimes).allSatisfy { abs($0 - $1) < 0.001 }, "\(name): frame times differ from the plan")
        let length = Self.seconds(plan["duration"])
        let fileLength = Double((probed["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(abs(fileLength - length) < 0.002 && abs(length - 11) < 0.025, "\(name): the file lasts \(fileLength) s, the plan \(length) s, the timeline 11 s")
        if let gap = expected.firstIndex(of: -1), gap + 1 < plannedTimes.count {
            #expect(abs(plannedTimes[gap + 1] - plannedTimes[gap] - 2) < 0.025, "\(name): the gap shows from \(plannedTimes[gap]) to \(plannedTimes[gap + 1])")
        }

        // Silence in the gap (5-7 s; the audio is a gap from 4 s to 7.2 s), the tone elsewhere.
        let audio = try TestSupport.decodeAudio(output, sampleRate: 48000)
        let gapPeak = audio[Int(5.05 * 48000)..<Int(6.95 * 48000)].map(abs).max() ?? 1
        let tonePeak = audio[Int(0.2 * 48000)..<Int(1.8 * 48000)].map(abs).max() ?? 0
        #expect(gapPeak < 0.001 && tonePeak > 0.08, "\(name): peak \(gapPeak) in the gap, \(tonePeak) in the first seconds")

        // ffmpeg decodes every stream with -xerror; a second export writes the same packets.
        let strict = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", output.path, "-map", "0", "-fps_mode", "passthrough", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(name): \(strict.stderr)")
        let again = try Self.slowpoke(["export", "-o", "again.mp4", "--progress", "none"], in: folder)
        try #require(again.status == 0, "\(again.stderr)")
        let first = try Self.packets(output), second = try Self.packets(folder.file("again.mp4"))
        #expect(first.count > expected.count && first == second, "\(name): two exports differ (\(first.count) and \(second.count) packets)")
    }

    /// A gap alone (nothing reversed, nothing removed) is black in passthrough too, as
    /// `insert-gap` promises, and silent; `info` plans it (a timeline that plays the whole video
    /// forwards, in order, once had no plan) and the export writes what it planned.
    @Test func aGapAloneIsBlack() throws {
        let folder = try TemporaryFolder("stills-gap")
        let source = try Self.make("clip.mp4", Self.shapes[0].args, in: folder)
        for edit in [["open", "clip.mp4"], ["insert-gap", "--at", "5", "--duration", "2"]] {
            try #require(try Self.slowpoke(edit, in: folder).status == 0)
        }
        let info = try Self.slowpoke(["info", "--json", "--frames"], in: folder)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let plan = try #require(json["exportPlan"] as? [String: Any], "no plan for a timeline with a gap")
        let planned = try #require(plan["frames"] as? [[String: Any]])
        #expect(plan["blackFrames"] as? Int == 1 && plan["heldFrames"] as? Int == 0 && planned.count == Self.rate * Self.seconds + 1, "\(plan)")
        let export = try Self.slowpoke(["export", "-o", "gap.mp4", "--progress", "none"], in: folder)
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("(1 black for a gap among them)") && !export.stderr.contains("stays on screen"), "\(export.stdout) \(export.stderr)")
        let (pictures, errors) = try Self.pictures(folder.file("gap.mp4"), in: folder)
        let (sourcePictures, _) = try Self.pictures(source, in: folder)
        #expect(errors.isEmpty && pictures.count == planned.count, "\(pictures.count) frames: \(errors)")
        let black = try #require(planned.firstIndex { $0["black"] as? Bool == true })
        #expect(black == 150 && Self.seconds(planned[black]["time"]) >= 4.97 && Self.isBlack(pictures[black]), "the black frame is output frame \(black)")
        // Every other frame is the source's, in order (copied, or re-encoded beside the gap).
        let others = pictures.indices.filter { $0 != black }
        let worst = zip(others, sourcePictures).map { SmartCutTests.psnr(pictures[$0.0], $0.1) }.min() ?? 0
        #expect(others.count == sourcePictures.count && worst >= 45, "\(others.count) frames, the worst at \(worst) dB")
        let audio = try TestSupport.decodeAudio(folder.file("gap.mp4"), sampleRate: 48000)
        let gapPeak = audio[Int(5.05 * 48000)..<Int(6.95 * 48000)].map(abs).max() ?? 1
        #expect(gapPeak < 0.001 && (audio[Int(7.1 * 48000)..<Int(8 * 48000)].map(abs).max() ?? 0) > 0.08, "peak \(gapPeak) in the gap")
    }

    /// libde265 (HEVC) decodes the export without an error to ffmpeg's pictures, every one;
    /// OpenH264 (H.264), whose pictures of this High-profile source are not all FFmpeg's,
    /// decodes as many, each one its own picture of the source or FFmpeg's of the export (the
    /// held and black stills among them).
    static func aSecondDecoderAgrees(_ output: URL, source: URL, name: String, pictures: [Data], in folder: TemporaryFolder) throws {
        if name.hasPrefix("hevc") {
            let second = try HEVCSmartCutTests.libde265(output, frameBytes: frameBytes, in: folder)
            let differing = zip(second.frames, pictures).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(second.errors.isEmpty && second.frames.count == pictures.count && differing.isEmpty,
                    "\(name): libde265 gives \(second.frames.count) pictures of \(pictures.count), differing at \(differing.prefix(8)): \(second.errors)")
            return
        }
        let decoder = try SmartCutTests.buildOpenH264(in: folder)
        let own = try SmartCutTests.openH264(source, frameBytes: frameBytes, decoder: decoder, in: folder)
        let second = try SmartCutTests.openH264(output, frameBytes: frameBytes, decoder: decoder, in: folder)
        let known = Set(own.frames).union(pictures)
        let unknown = second.frames.indices.filter { !known.contains(second.frames[$0]) }
        #expect(own.errors.isEmpty && second.errors.isEmpty && second.frames.count == pictures.count && unknown.isEmpty,
                "\(name): OpenH264 gives \(second.frames.count) pictures of \(pictures.count), unknown at \(unknown.prefix(8)): \(second.errors)")
    }

    /// 4:4:4 H.264 cannot be re-encoded to match (libx264 splices only 4:2:0): `info`'s plan
    /// says why before any work, and export refuses with the same words, writing nothing.
    @Test func aCodecThatCannotBeReencodedIsRefusedByThePlan() throws {
        let folder = try TemporaryFolder("stills-444")
        _ = try Self.make("clip.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-g", "48", "-bf", "3", "-pix_fmt", "yuv444p"], in: folder)
        for edit in [["open", "clip.mp4"]] + Self.edits { #expect(try Self.slowpoke(edit, in: folder).status == 0) }
        let info = try Self.slowpoke(["info", "--json"], in: folder)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let refusal = try #require(json["exportRefusal"] as? String, "no refusal: \(json["exportPlan"] ?? "")")
        #expect(refusal.contains("yuv444p") && refusal.contains("--fps"), "\(refusal)")
        let export = try Self.slowpoke(["export", "-o", "slow.mp4", "--progress", "none"], in: folder)
        #expect(export.status != 0 && export.stderr.contains(refusal), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("slow.mp4").path))
    }
}
