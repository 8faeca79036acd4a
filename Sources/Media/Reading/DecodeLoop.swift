internal import CFFmpeg

/// The one loop that decodes a video stream, a step at a time: it reads the stream's packets
/// from an ``InputFormatContext``, sends them to the decoder and takes the frames out. Both
/// readers of pictures decode with it: ``FrameDecoder`` (frames by presentation index, over a
/// ``VideoScan``: `--fps`, stills, stabilization, smart cuts) and ``VideoFrameReader`` (the
/// preview's frame at a source time, found by seeking by time, without a scan).
///
/// Each reader places the input itself (on a keyframe it knows, or at a time), then calls
/// ``restart()`` or ``reopen()``; each decides what damage means to it (an error, a warning,
/// or a frame silently skipped) and which packets the decoder may discard.
final class DecodeLoop {
    /// What one ``step(into:discard:)`` did.
    enum Step {
        /// A frame came out, into the frame given.
        case frame
        /// A packet of the stream was sent, or the end of the stream announced: no frame yet.
        case fed
        /// The decoder refused the packet (damage); ``packet`` still holds it.
        case refused(AVFailure)
        /// The decoder failed to give a frame (damage).
        case damaged(AVFailure)
        /// Reading the input failed; nothing was sent, and ``drain()`` ends the decoding there.
        case unreadable(MediaError)
        /// Every frame is out.
        case endOfStream
    }

    let input: InputFormatContext
    let stream: Int
    private(set) var decoder: CodecContext
    /// The packet read last.
    let packet: Packet
    private let threads: Int
    /// Whether the decoder was told that the stream ended.
    private var draining = false

    /// Decodes stream `stream` of `input` (whose other streams are no longer read) with
    /// `threads` decoding threads (0 lets libavcodec choose).
    init(input: InputFormatContext, stream: Int, threads: Int) throws(MediaError) {
        self.input = input
        self.stream = stream
        self.threads = threads
        input.readOnly(stream: stream)
        decoder = try CodecContext.decoder(for: input.stream(stream), threads: threads)
        packet = try Packet()
    }

    /// Takes the decoder's next frame into `frame`; when the decoder wants input, reads the
    /// stream's next packet and sends it, or announces the end of the stream. `discard` says
    /// what of a packet the decoder may skip (`AVDISCARD_DEFAULT`: nothing).
    func step(into frame: Frame, discard: (Packet) -> AVDiscard) -> Step {
        let got: CodecContext.Step
        do { got = try decoder.receive(frame) } catch { return .damaged(error) }
        switch got {
        case .ok: return .frame
        case .endOfStream: return .endOfStream
        case .needsInput:
            if draining { return .endOfStream }
            let more: Bool
            do { more = try nextPacket() } catch { return .unreadable(error) }
            guard more else {
                drain()
                return .fed
            }
            return send(discard: discard(packet)).map { .refused($0) } ?? .fed
        }
    }

    /// Reads the stream's next packet into ``packet``; false at the end of the file.
    func nextPacket() throws(MediaError) -> Bool {
        while try input.read(into: packet) {
            if Int(packet.pointer.pointee.stream_index) == stream { return true }
        }
        return false
    }

    /// Sends ``packet`` to the decoder, which may skip what `discard` says; the failure when it
    /// refuses the packet.
    func send(discard: AVDiscard) -> AVFailure? {
        decoder.pointer.pointee.skip_frame = discard
        let sent = decoder.send(packet)
        return sent < 0 && sent != sp_averror_eagain() ? AVFailure(code: sent, operation: "decoding") : nil
    }

    /// Tells the decoder that the stream ends here: it gives the frames it holds, then
    /// ``Step/endOfStream``.
    func drain() {
        draining = true
        _ = decoder.send(nil)
    }

    /// Flushes the decoder after the input moved: it forgets the frames it held, and keeps what
    /// it learnt of the stream (parameter sets, recovery points).
    func restart() {
        LibAVCodec.flushBuffers(decoder.pointer)
        draining = false
    }

    /// Opens the decoder afresh after the input moved: it knows only what it is sent from here.
    func reopen() throws(MediaError) {
        decoder = try CodecContext.decoder(for: input.stream(stream), threads: threads)
        draining = false
    }
}
