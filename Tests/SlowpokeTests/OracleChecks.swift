import Foundation
import TestSupport

/// The oracle's checks of one case's exports (see ``CrossFeatureOracleTests``).
extension OracleCase {
    struct Export {
        let output: URL
        let result: TestSupport.Result
        var wrote: OracleDecode.Wrote { OracleDecode.wrote(result.stdout) }
    }

    /// Runs an export to `name`. A refusal (exit 1, `slowpoke: error:`) is recorded and gives
    /// nil; any other failure fails the case.
    func export(_ arguments: [String], to name: String, main: Bool = true) throws -> Export? {
        let result = try shell.slowpoke(arguments + ["--progress", "none"])
        let output = folder.file(name)
        if result.status == 0 {
            if !FileManager.default.fileExists(atPath: output.path) { fail("exit status", "exit 0 but no \(name)") }
            return Export(output: output, result: result)
        }
        guard result.status == 1, let refusal = OracleRun.refusal(result.stderr) else {
            fail("exit status", "\(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
            return nil
        }
        if FileManager.default.fileExists(atPath: output.path) { fail("refusal leaves nothing", "a refused export left \(name) behind") }
        if main { run.refuse(seed: seed, mode: mode.description, message: refusal) }
        return nil
    }

    /// Each output frame's source index (nil for a frame that is no source frame), by ffmpeg's
    /// `-xerror` decode; nil when it does not decode cleanly (a failed check).
    func sourceFrames(_ file: URL, label: String) throws -> [Int?]? {
        let result = try TestSupport.tool("ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-map", "0:v", "-fps_mode", "passthrough",
                                                     "-f", "framemd5", "-"])
        run.ran("clean decode")
        guard result.status == 0, result.stderr.isEmpty else {
            fail("clean decode", "\(label): ffmpeg -xerror says (exit \(result.status)) \(result.stderr.prefix(300))")
            return nil
        }
        let md5s = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        return md5s.map { facts.index[$0] }
    }

    func checkPassthrough(_ timeline: OracleTimeline) throws {
        let name = "out.\(source.outputContainer)"
        guard let main = try export(mode.arguments(output: name), to: name) else { return try checkRefusal(timeline) }
        run.countChecked()
        guard let frames = try sourceFrames(main.output, label: "\(mode)") else { return }
        try checkShape(main, firstFrame: frames.first ?? nil)
        let snapped = mode == .keyframeCuts || timeline.cuts?.keyframeCutsBecause != nil
        if snapped {
            checkKeyframeCuts(frames, main)
        } else {
            try checkFrameExact(frames, main, timeline)
        }
        if main.wrote.frames != frames.count {
            fail("printed frame count", "the export says \(main.wrote.frames.map(String.init) ?? "nothing") frames, ffmpeg decodes \(frames.count)")
        }
        if mode == .passthrough { checkInfoCounts(timeline, main) }
        try checkRepeat(main, name: "again.\(source.outputContainer)")
        try checkSecondDecoder(main.output, frames: frames.count)
        // The default export against --exact: the fit moves times, never frames.
        let other: OracleMode? = mode == .passthrough ? .exact : mode == .exact ? .passthrough : nil
        if let other, let compared = try export(other.arguments(output: "other.\(source.outputContainer)"), to: "other.\(source.outputContainer)", main: false) {
            if let otherFrames = try sourceFrames(compared.output, label: "\(other)") {
                let (fitted, exact) = mode == .passthrough ? (frames, otherFrames) : (otherFrames, frames)
                checkSameFrames(fitted: fitted, exact: exact)
            }
            // Where the plan moves cuts to keyframes (a freeze beside a cut), a removed range
            // may stay, with its sound; where it moves a cut to where copied frames decode (an
            // edit 2 ms into a frame, seed 0xd78d1893abd71cac), the sound after it moves with
            // it: the timeline's beeps are not the export's (the frames are still the plan's).
            let plan = timeline.json["exportPlan"] as? [String: Any]
            let planSnapped = plan?["keyframeCutsBecause"] as? String != nil || (plan?["movedCuts"] as? [Any])?.isEmpty == false
            if !snapped && !planSnapped { try checkBeeps(mode == .exact ? main.output : compared.output, timeline, fitted: false) }
        }
    }

    /// A refused export: `info` must have foreseen a refusal of the default export (by
    /// `exportRefusal`, by leaving out `export`, or by naming the video as left out).
    func checkRefusal(_ timeline: OracleTimeline) throws {
        guard mode == .passthrough || mode == .exact else { return }
        run.ran("refused though info foresaw an export")
        let export = timeline.json["export"] as? [String: Any]
        let streams = export?["streams"] as? [[String: Any]] ?? []
        let leftOut = streams.contains { $0["kind"] as? String == "video" && $0["fate"] as? String == "leftOut" }
        let foreseen = timeline.json["exportRefusal"] is String
        if export != nil && !leftOut && !foreseen {
            let said = timeline.cuts.map { "exportCuts \($0.reencodedFrames) re-encoded, \($0.copiedFrames) copied" } ?? "no exportCuts"
            fail("refused though info foresaw an export", "info --json: every stream exported (\(said)); the export: \(OracleRun.shorten(shell.commands.last ?? ""))")
        }
    }

    /// Frame-exact cuts: exactly the frames the timeline shows, in its order; frames that are
    /// no source frame (re-encoded) within the export's count and >= 45 dB.
    func checkFrameExact(_ frames: [Int?], _ export: Export, _ timeline: OracleTimeline) throws {
        // The plan's frames where it moves cuts to keyframes (the export says so); else the
        // timeline's own, which the plan must equal.
        let planned = timeline.plannedFrames(times: facts.times)
        let snapped = ((timeline.json["exportPlan"] as? [String: Any])?["keyframeCutsBecause"] as? String) != nil
        let stills = source.reencodesStills && (timeline.hasReverse || timeline.hasGap)
        let own = timeline.passthroughFrames(times: facts.times, stills: stills)
        let predicted = snapped ? planned ?? own : own
        if mode == .passthrough, let planned { run.ran("plan frames") }
        if mode == .passthrough, let planned, planned != predicted {
            fail("plan frames", "info --json --frames plans \(planned.count) frames, the timeline shows \(predicted.count)")
        }
        run.ran("frame count"); run.ran("frames not in source"); run.ran("frame order")
        let unknown = frames.filter { $0 == nil }.count
        if unknown > export.wrote.reencoded {
            fail("frames not in source", "\(unknown) output frames are no source frame; the export says \(export.wrote.reencoded) re-encoded")
        }
        guard frames.count == predicted.count else {
            let missing = Set(predicted).subtracting(frames.compactMap { $0 }).sorted(), extra = Set(frames.compactMap { $0 }).subtracting(predicted).sorted()
            return fail("frame count", "\(frames.count) frames, the timeline shows \(predicted.count); source frames missing \(missing.prefix(12)), not shown by the timeline \(extra.prefix(12))")
        }
        let wrong = frames.indices.filter { frames[$0] != nil && frames[$0] != predicted[$0] }

        if let first = wrong.first {
            fail("frame order", "\(wrong.count) output frames show another source frame than the timeline's; output frame \(first) shows \(frames[first]!), not \(predicted[first])")
        }
        let reencoded = frames.indices.filter { frames[$0] == nil && predicted[$0] != OracleTimeline.black }
        guard !reencoded.isEmpty else { return }
        run.ran("re-encoded PSNR")
        let sourcePictures = try facts.pictures(in: folder)
        let out = try OracleDecode.pictures(export.output, source, in: folder)
        guard out.frames.count == frames.count else { return fail("clean decode", "raw decode gives \(out.frames.count) pictures, framemd5 \(frames.count)") }
        let poor = reencoded.map { ($0, OracleDecode.psnr(out.frames[$0], sourcePictures[predicted[$0]], tenBit: source.tenBit)) }.filter { $0.1 < 45 }
        if let worst = poor.min(by: { $0.1 < $1.1 }) {
            fail("re-encoded PSNR", "\(poor.count) of \(reencoded.count) re-encoded frames under 45 dB; output frame \(worst.0) \(String(format: "%.1f", worst.1)) dB against source frame \(predicted[worst.0])")
        }
    }

    /// Cuts moved to keyframes: only source frames, each shown once.
    func checkKeyframeCuts(_ frames: [Int?], _ export: Export) {
        run.ran("keyframe cuts copy only")
        let unknown = frames.filter { $0 == nil }.count
        if unknown > 0 { fail("keyframe cuts copy only", "\(unknown) of \(frames.count) output frames are no source frame") }
        let known = frames.compactMap { $0 }
        if Set(known).count != known.count { fail("keyframe cuts copy only", "a source frame is shown twice") }
    }

    func checkSameFrames(fitted: [Int?], exact: [Int?]) {
        run.ran("default vs --exact frames")
        func text(_ f: [Int?]) -> String { f.map { $0.map(String.init) ?? "R" }.joined(separator: " ") }
        if fitted.count != exact.count {
            let lost = Set(exact.compactMap { $0 }).subtracting(fitted.compactMap { $0 }).sorted()
            return fail("default vs --exact frames", "the default export has \(fitted.count) frames, --exact \(exact.count); source frames only in --exact: \(lost.prefix(12))\n  default: \(text(fitted).prefix(400))\n  --exact: \(text(exact).prefix(400))")
        }
        if let i = fitted.indices.first(where: { fitted[$0] != nil && exact[$0] != nil && fitted[$0] != exact[$0] }) {
            fail("default vs --exact frames", "output frame \(i) is source frame \(fitted[i]!) by default, \(exact[i]!) with --exact")
        }
    }

    /// `info --json`'s exportCuts against the default export's `wrote` line.
    func checkInfoCounts(_ timeline: OracleTimeline, _ export: Export) {
        let wrote = export.wrote
        run.ran("info vs export counts")
        guard let cuts = timeline.cuts else {
            if wrote.reencoded != 0 { fail("info vs export counts", "info --json has no exportCuts; the export re-encoded \(wrote.reencoded) frames") }
            return
        }
        let copied = wrote.copied ?? (cuts.keyframeCutsBecause == nil ? wrote.frames : nil)
        if cuts.reencodedFrames != wrote.reencoded || (copied != nil && cuts.copiedFrames != copied) {
            fail("info vs export counts", "info --json: \(cuts.reencodedFrames) re-encoded, \(cuts.copiedFrames) copied; the export: \(wrote.reencoded) re-encoded, \(copied.map(String.init) ?? "?") copied")
        }
    }

    /// The same export again: the same packets in every stream.
    func checkRepeat(_ first: Export, name: String) throws {
        run.ran("repeatable")
        let arguments = Array(first.result.stdout.isEmpty ? [] : commandOf(first))
        guard !arguments.isEmpty, let again = try export(arguments.map { $0 == first.output.lastPathComponent ? name : $0 }, to: name, main: false) else {
            return fail("repeatable", "the same export again was refused or failed")
        }
        // The same bytes are the same packets: ffprobe lists them only where the files differ
        // (Matroska's random SegmentUID), two ffprobe runs fewer for most cases.
        if !FileManager.default.contentsEqual(atPath: first.output.path, andPath: again.output.path),
           try OracleDecode.packets(first.output) != OracleDecode.packets(again.output) {
            fail("repeatable", "two runs of the same export differ in their packets")
        }
    }

    /// The arguments of the export that wrote `export` (the mode's).
    func commandOf(_ export: Export) -> [String] {
        switch mode {
        case .constantRate, .audioOnly: mode.arguments(output: export.output.lastPathComponent) + (exactFlag ? ["--exact"] : [])
        default: mode.arguments(output: export.output.lastPathComponent)
        }
    }
}
