internal import CFFmpeg

/// Which video packets are damaged, packet by packet in decode order: one libavformat flags as
/// corrupt, and every one decoded after it up to the next keyframe a decoder can start from —
/// unless the flag lost nothing.
///
/// The transport stream demuxer flags the packet it is assembling when a continuity counter
/// jumps, and its parser, one frame behind, hands the flag to the frame before. Bytes lost in
/// transit do that, and so does every `cat` of two recordings, at the join, though no byte is
/// missing: there the flag lands on the first clip's last frame but one, and the frame after
/// the last starts the second clip afresh. So a flag is let go when a fresh start follows within
/// two frames and those frames decode cleanly (with every packet since their keyframe, by a
/// decoder that makes any damage it notices an error); otherwise they are damaged after all.
final class DamageCheck {
    private let stream: StreamView
    /// The packets since the last keyframe a decoder can start from, in decode order.
    private var since: [Packet] = []
    /// Whether `since` holds every one of them (a longer group of pictures is not kept).
    private var complete = false
    private let limit = 1200
    private var inDamage = false
    /// The flagged packet's number, until a fresh start or a third frame says whether anything
    /// was lost.
    private var suspect: Int?
    private var count = 0

    init(stream: StreamView) {
        self.stream = stream
    }

    /// Whether `packet` (the next in decode order) is damaged, and earlier packets found
    /// damaged after all (a flagged one and the one after it, when no fresh start follows).
    func next(_ packet: Packet, startsAfresh: Bool) -> (damaged: Bool, earlier: Range<Int>?) {
        defer { count += 1 }
        var earlier: Range<Int>?
        if let flagged = suspect, startsAfresh || count - flagged >= 2 {
            suspect = nil
            if !startsAfresh || !decodesCleanly() {
                earlier = flagged..<count
                inDamage = !startsAfresh
            }
        }
        remember(packet, startsAfresh: startsAfresh)
        if packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
            if inDamage && !startsAfresh {
                forget()
            } else {
                inDamage = false
                suspect = suspect ?? count
            }
        } else if startsAfresh {
            inDamage = false
        }
        return (inDamage, earlier)
    }

    /// At the end of the stream: a flagged packet still in doubt is damaged unless it, and what
    /// follows it, decode cleanly.
    func finish() -> Range<Int>? {
        guard let flagged = suspect else { return nil }
        suspect = nil
        return decodesCleanly() ? nil : flagged..<count
    }

    private func forget() {
        inDamage = true
        since.removeAll()
        complete = false
    }

    private func remember(_ packet: Packet, startsAfresh: Bool) {
        if startsAfresh {
            since.removeAll()
            complete = true
        }
        guard complete, since.count < limit, let copy = try? Packet(), LibAVCodec.packetRef(copy.pointer, packet.pointer) >= 0 else {
            complete = false
            return
        }
        since.append(copy)
    }

    /// Whether the remembered packets, the last of them the flagged one, all decode cleanly.
    private func decodesCleanly() -> Bool {
        guard complete, !since.isEmpty,
              let decoder = try? CodecContext.decoder(for: stream, threads: 1, errorRecognition: AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER),
              let frame = try? Frame() else { return false }
        var frames = 0
        func drain() -> Bool {
            while true {
                guard let step = try? decoder.receive(frame) else { return false }
                guard step == .ok else { return true }
                let f = frame.pointer.pointee
                av_frame_unref(frame.pointer)
                if f.decode_error_flags != 0 || f.flags & AV_FRAME_FLAG_CORRUPT != 0 { return false }
                frames += 1
            }
        }
        for packet in since {
            let sent = decoder.send(packet)
            guard sent >= 0 || sent == sp_averror_eagain(), drain() else { return false }
        }
        _ = decoder.send(nil)
        return drain() && frames == since.count
    }
}
