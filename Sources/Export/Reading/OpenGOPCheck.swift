internal import CFFmpeg

/// Finds, packet by packet during ``VideoScan``'s demux, the open-GOP recovery points of an
/// H.264 stream that a smart cut may resume at (``OpenGOPResume``), and why there are none when
/// the stream has such keyframes that cannot be rewritten as IDR pictures. Every picture's
/// first slice header is read (no decoding): one that the renumbering cannot follow makes the
/// whole stream resume only at IDR pictures, as before.
struct OpenGOPCheck {
    private var resume: OpenGOPResume?
    /// Why the stream's recovery points cannot be rewritten (found in its parameter sets or in
    /// any picture).
    private var reason: String?
    private var sawRecoveryKeyframe = false

    /// Whether the recovery points found can be rewritten.
    var rewritable: Bool { reason == nil }
    /// Why the recovery points cannot be rewritten, when the stream has keyframes that are not
    /// IDR pictures.
    var refusal: String? { sawRecoveryKeyframe ? reason : nil }

    init(parameters: UnsafePointer<AVCodecParameters>) {
        let p = parameters.pointee
        guard p.codec_id == AV_CODEC_ID_H264 else { return }
        let record = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        do { resume = try OpenGOPResume(avcC: record) } catch { reason = "\(error)" }
    }

    /// Whether the packet (in decode order) is a recovery point a run may resume at.
    mutating func resumes(_ packet: UnsafePointer<AVPacket>, key: Bool, startsAfresh: Bool) -> Bool {
        if key && !startsAfresh { sawRecoveryKeyframe = true }
        guard let resume, let data = packet.pointee.data else { return false }
        do {
            let picture = try resume.picture(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            return key && !startsAfresh && picture == .recoveryPoint
        } catch {
            reason = "\(error)"
            self.resume = nil
            return false
        }
    }
}
