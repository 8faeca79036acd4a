internal import Bitstream
internal import CFFmpeg

/// Finds, packet by packet during ``VideoScan``'s demux, the open-GOP recovery points of an
/// H.264 stream that a smart cut may resume at (``OpenGOPResume``), and why there are none when
/// the stream has such keyframes that cannot be rewritten as IDR pictures. Every picture's
/// first slice header is read (no decoding): one that the renumbering cannot follow makes the
/// whole stream resume only at IDR pictures, as before.
///
/// The pictures after a recovery point, up to the next keyframe, are followed too: a cut drops
/// its leading pictures (shown before it) and everything decoded before it, so a picture shown
/// after it whose reference list modification names one of those (which a recovery-point SEI
/// with recovery_frame_cnt 0 promises never to happen) withdraws that recovery point.
package struct OpenGOPCheck {
    private var resume: OpenGOPResume?
    /// Why the stream's recovery points cannot be rewritten (found in its parameter sets or in
    /// any picture).
    private var reason: String?
    private var sawRecoveryKeyframe = false

    /// The pictures decoded after the latest recovery point, up to the next keyframe.
    private struct Following {
        /// The recovery point's decode index and presentation time.
        let index: Int
        let pts: Int64
        /// The last picture's frame_num, how far frame_num has counted from the recovery point
        /// at it (without wrapping), and the counts of the leading reference pictures.
        var lastFrameNum: Int
        var counted = 0
        var dropped: Set<Int> = []
    }

    private var following: Following?
    /// Decode indices of recovery points a later picture refers past.
    package private(set) var withdrawn: [Int] = []

    /// Whether the recovery points found can be rewritten.
    package var rewritable: Bool { reason == nil }
    /// Why the recovery points cannot be rewritten, when the stream has keyframes that are not
    /// IDR pictures.
    package var refusal: String? { sawRecoveryKeyframe ? reason : nil }

    init(parameters: UnsafePointer<AVCodecParameters>) {
        let p = parameters.pointee
        guard p.codec_id == AV_CODEC_ID_H264 else {
            self.init()
            return
        }
        self.init(avcC: p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? [])
    }

    /// Another codec: no recovery points to find.
    private init() {}

    /// An H.264 stream whose extradata is `record`.
    package init(avcC record: [UInt8]) {
        do { resume = try OpenGOPResume(avcC: record) } catch { reason = "\(error)" }
    }

    /// Whether the packet at decode index `index`, shown at `pts`, is a recovery point a run
    /// may resume at.
    mutating func resumes(_ packet: UnsafePointer<AVPacket>, index: Int, pts: Int64, key: Bool, startsAfresh: Bool) -> Bool {
        guard let data = packet.pointee.data else {
            if key && !startsAfresh { sawRecoveryKeyframe = true }
            return false
        }
        return resumes(sample: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)), index: index, pts: pts, key: key, startsAfresh: startsAfresh)
    }

    /// Whether `sample` (length-prefixed NAL units) at decode index `index`, shown at `pts`, is
    /// a recovery point a run may resume at.
    package mutating func resumes(sample: UnsafeBufferPointer<UInt8>, index: Int, pts: Int64, key: Bool, startsAfresh: Bool) -> Bool {
        if key && !startsAfresh { sawRecoveryKeyframe = true }
        guard let resume else { return false }
        do {
            let (picture, slice) = try resume.read(sample)
            if key { following = nil }
            let recovery = key && !startsAfresh && picture == .recoveryPoint
            if recovery, let slice {
                following = Following(index: index, pts: pts, lastFrameNum: slice.frameNum)
            } else if let slice {
                follow(slice, pts: pts)
            }
            return recovery
        } catch {
            reason = "\(error)"
            self.resume = nil
            return false
        }
    }

    /// Counts `slice`'s picture after the recovery point and checks what its reference list
    /// modifications name (picture numbers counted as frame_num is, H.264 8.2.4.3.1).
    private mutating func follow(_ slice: SliceHeader, pts: Int64) {
        guard var f = following, let sps = resume?.table.sets(pps: slice.ppsID)?.sps else { return }
        let maxFrameNum = 1 << sps.log2MaxFrameNum
        f.counted += (slice.frameNum - f.lastFrameNum + maxFrameNum) % maxFrameNum
        f.lastFrameNum = slice.frameNum
        following = f
        if pts < f.pts {
            if slice.nalRefIdc != 0 { following?.dropped.insert(f.counted) }
            return
        }
        // Picture numbers wrap modulo MaxPicNum (MaxFrameNum for frames): a prediction names
        // the picture up to MaxFrameNum - 1 before the current one that it is congruent with
        // (x264 names one reference twice, with different weights, by going round once).
        var predicted = f.counted, list = -1
        for m in slice.modifications {
            if m.list != list { (predicted, list) = (f.counted, m.list) }
            predicted += m.idc == 0 ? -(m.value + 1) : m.value + 1
            predicted = f.counted - ((f.counted - predicted) % maxFrameNum + maxFrameNum) % maxFrameNum
            if predicted < 0 || f.dropped.contains(predicted) {
                withdrawn.append(f.index)
                following = nil
                return
            }
        }
    }
}
