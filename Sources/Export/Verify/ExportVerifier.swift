import Foundation
import Composition
internal import CFFmpeg
import Media

/// Checks a written passthrough output against its ``PassthroughPlan`` (`export --verify`),
/// without decoding the whole of it:
/// - every video packet in the output's decode order has the plan's presentation and decode
///   times, exact in the output timescale, and the output shows as many frames as the plan;
/// - every copied packet is compared byte for byte with the source packet the plan names;
/// - copied packets the exporter rewrote (``rewritten``: open-GOP recovery points made IDR
///   pictures and the pictures renumbered after them, HEVC packets given the stream's parameter
///   sets in band where copying resumes) are decoded instead, from the output's keyframe before
///   them, and must give the source frame's picture bit for bit: decoding is what proves that a
///   rewritten header still describes the same picture, whatever the rewriting touched;
/// - re-encoded frames are decoded the same way and compared with the decoded source frame
///   (PSNR of luma and chroma, at least ``ExportVerification/minimumAllowedPSNR``);
/// - with a crop (``crop``: the passthrough crop done by rewriting the stream's cropping window),
///   every shown picture is decoded from the output (cropped exactly, not aligned) and must
///   equal the source's decoded picture cut to the same region, bit for bit for copies, at
///   ``ExportVerification/minimumAllowedPSNR`` for re-encoded frames;
/// - the output holds the streams the ``StreamPlan`` writes (their count and kinds), and each
///   audio stream starts and ends with the video, within half an audio frame (what fitting the
///   timeline to the copied audio's frames moves an edit by, at most).
struct ExportVerifier {
    let plan: PassthroughPlan
    /// Output decode positions of copied packets whose bytes the exporter changed.
    let rewritten: Set<Int>
    let movie: URL
    let stream: Int
    /// The written file (still under its temporary name).
    let output: String
    /// The kinds of stream the plan writes (libavutil's names: video, audio, subtitle, attachment).
    let plannedKinds: [String]
    /// The region of the source's pictures the output shows, for a cropped export.
    var crop: PictureRegion? = nil

    /// Verifies the output; throws ``ExportVerification/Failure`` naming what differs.
    func verify() throws -> ExportVerification {
        let input = try InputFormatContext(path: output)
        let streams = (0..<Int(input.pointer.pointee.nb_streams)).map { input.stream($0) }
        let kinds = streams.map { av_get_media_type_string($0.parameters.pointee.codec_type).map { String(cString: $0) } ?? "unknown" }
        var differences: [ExportVerification.Difference] = []
        if kinds.sorted() != plannedKinds.sorted() {
            differences.append(.streams(planned: plannedKinds.sorted(), found: kinds.sorted()))
        }
        guard let video = streams.firstIndex(where: { $0.parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                                                      && $0.pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 }) else {
            throw ExportVerification.Failure(differences: differences + [.frameCount(planned: plan.videoFrames, found: 0)], checked: 0)
        }
        var packets = try PacketCheck(plan: plan, rewritten: rewritten, movie: movie, stream: stream,
                                      outputStream: video, timeBase: streams[video].pointer.pointee.time_base)
        try packets.read(input)
        differences += packets.differences
        let sync = try audioSync(streams, packets: packets, differences: &differences)
        let pictures = try comparePictures(outputStream: video, differences: &differences)
        guard differences.isEmpty else {
            throw ExportVerification.Failure(differences: differences, checked: packets.shown)
        }
        var proof = ExportVerification(frames: packets.shown, copiedIdentical: packets.copiedIdentical,
                                       rewrittenIdentical: crop == nil ? pictures.rewritten : 0, reencoded: pictures.reencoded,
                                       minimumPSNR: pictures.reencoded > 0 ? pictures.minimumPSNR : nil,
                                       streams: streams.count, sync: sync)
        proof.croppedIdentical = crop == nil ? 0 : pictures.rewritten
        return proof
    }

    /// The largest distance of an audio stream's start and end from the video's, in seconds;
    /// a distance over half an audio frame is a difference.
    private func audioSync(_ streams: [StreamView], packets: PacketCheck,
                           differences: inout [ExportVerification.Difference]) throws -> Double? {
        let videoStart = plan.frames.first?.time.seconds ?? 0
        let videoEnd = plan.duration.seconds
        var worst: Double?
        for (index, s) in streams.enumerated() where s.parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            guard let extent = packets.extent(of: index, stream: s) else { continue }
            let p = s.parameters.pointee
            let frame = p.frame_size > 0 && p.sample_rate > 0 ? Double(p.frame_size) / Double(p.sample_rate) : 0.002
            let allowed = frame / 2
            for (edge, offset) in [("starts", extent.start - videoStart), ("ends", extent.end - videoEnd)] {
                worst = max(worst ?? 0, abs(offset))
                if abs(offset) > allowed { differences.append(.sync(edge: edge, offset: offset, allowed: allowed)) }
            }
        }
        return worst
    }

    /// Decodes the re-encoded frames and rewritten copies (with a crop, every shown frame) from
    /// the output and their source frames from the movie, and compares them.
    private func comparePictures(outputStream: Int, differences: inout [ExportVerification.Difference])
        throws -> (reencoded: Int, rewritten: Int, minimumPSNR: Double) {
        let (sourceOf, encoded) = comparedFrames()
        guard !sourceOf.isEmpty else { return (0, 0, .infinity) }
        // A source frame may be shown more than once.
        let outputsOf = Dictionary(grouping: sourceOf.keys, by: { sourceOf[$0]! })
        var kept: [Int: Frame] = [:], digests: [Int: Int] = [:]
        let sampler = PictureSampler(path: output, stream: outputStream, unaligned: crop != nil)
        let lost = try sampler.decode(Set(sourceOf.keys)) { n, frame in
            if encoded.contains(n) {
                guard let copy = av_frame_clone(frame) else { throw ExportError.libav(AVFailure(code: sp_averror(ENOMEM), operation: "keeping a frame")) }
                kept[n] = Frame(owning: copy)
            } else {
                digests[n] = PictureComparison.digest(frame)
            }
        }
        var minimum = Double.infinity, reencoded = 0, identical = 0
        let sourceSampler = PictureSampler(path: movie.path, stream: stream, unaligned: crop != nil)
        let sourceLost = try sourceSampler.decode(Set(outputsOf.keys)) { i, decoded in
            let region = crop.map { $0.cropped(decoded) }
            if case .some(nil) = region {
                // The region is not inside this source picture: every output showing it differs.
                for n in outputsOf[i] ?? [] {
                    if kept.removeValue(forKey: n) != nil || digests.removeValue(forKey: n) != nil {
                        differences.append(picture(n, psnr: -.infinity, rewritten: !encoded.contains(n)))
                    }
                }
                return
            }
            let cut = region.flatMap { $0 }
            defer { withExtendedLifetime(cut) {} }
            let frame = cut.map { UnsafePointer($0.pointer) } ?? decoded
            for n in outputsOf[i] ?? [] {
                if let out = kept.removeValue(forKey: n) {
                    let psnr = PictureComparison.psnr(out.pointer, frame) ?? -.infinity
                    minimum = min(minimum, psnr)
                    reencoded += 1
                    if !(psnr >= ExportVerification.minimumAllowedPSNR) { differences.append(picture(n, psnr: psnr, rewritten: false)) }
                } else if let digest = digests.removeValue(forKey: n) {
                    if digest == PictureComparison.digest(frame) { identical += 1 }
                    else { differences.append(picture(n, psnr: .nan, rewritten: true)) }
                }
            }
        }
        for n in (lost + sourceLost.flatMap { outputsOf[$0] ?? [] }).sorted() {
            differences.append(.undecodable(time: time(of: n), source: plan.scan.packets[sourceOf[n]!].pts))
        }
        return (reencoded, identical, minimum)
    }

    /// The output decode positions whose pictures are compared, with the source decode index
    /// each shows, and those of them that are re-encoded. Held frames and black are not
    /// compared: their source is no one frame's place.
    private func comparedFrames() -> (sourceOf: [Int: Int], encoded: Set<Int>) {
        var sourceOf: [Int: Int] = [:]
        var encoded: Set<Int> = []
        for (n, entry) in plan.map.entries.enumerated() {
            guard let smart = plan.video.smart else {
                if crop != nil || rewritten.contains(n) { sourceOf[n] = entry.index }
                continue
            }
            let item = smart.items[entry.index]
            guard smart.still(item) == nil, let source = smart.sourceIndex(item) else { continue }
            if case .encoded = item { encoded.insert(n) } else if crop == nil && !rewritten.contains(n) { continue }
            sourceOf[n] = source
        }
        return (sourceOf, encoded)
    }

    private func picture(_ n: Int, psnr: Double, rewritten: Bool) -> ExportVerification.Difference {
        let source = plan.video.smart.map { $0.sourceIndex($0.items[plan.map.entries[n].index]) ?? 0 } ?? n
        return .picture(time: time(of: n), source: plan.scan.packets[source].pts, psnr: psnr, rewritten: rewritten)
    }

    /// Output decode position `n`'s planned presentation time.
    private func time(of n: Int) -> Time { Time(value: plan.map.entries[n].pts, timescale: plan.map.timescale) }
}
