/// Rewrites the copied pictures of a passthrough export where a run resumes at an open GOP's
/// recovery point (``OpenGOPResume``), sample by sample in output decode order:
///
/// - the recovery-point I becomes an IDR picture: NAL unit type 5, frame_num 0, an idr_pic_id
///   other than the previous IDR's, pic_order_cnt_lsb 0 (so its picture order count is 0), and
///   dec_ref_pic_marking in its IDR form; its recovery-point SEI is dropped;
/// - every copied picture after it, up to the next IDR picture or the end of the run, has its
///   frame_num and pic_order_cnt_lsb shifted by the same amounts (modulo MaxFrameNum and
///   MaxPicOrderCntLsb): picture order count differences, and so the output order, stay as in
///   the source;
/// - the reference pictures the cut dropped (an open GOP's leading B-frames in a pyramid) leave
///   frame_num gaps, which the output's SPS allows (``SequenceParameterSet``): decoders infer
///   "non-existing" frames there, so reference list indices and picture number differences
///   (ref_pic_list_modification, memory management) mean what they meant in the source;
/// - a memory management operation that marks a picture from before the recovery point unused
///   (which the output never had) is left out; the others stay.
public final class OpenGOPRewriter {
    private let resume: OpenGOPResume
    /// The output's parameter sets, the re-encoded spans' too (their IDR ids are read).
    private let output: ParameterTable

    /// The renumbering of a run that resumed at a recovery point.
    private struct Run {
        /// The recovery point's source pic_order_cnt_lsb.
        let pocLsb: Int
        /// The last copied picture's source frame_num, and how far frame_num has counted from
        /// the recovery point (without wrapping) at it.
        var lastFrameNum: Int
        var counted = 0
    }

    private var run: Run?
    /// The idr_pic_id of the last IDR picture written.
    private var lastIDR: Int?

    /// How an export's copied runs resume at recovery points: the rewriter, the output's
    /// parameter sets (frame_num gaps allowed), and which output samples continue the source.
    public struct Resumed {
        public let rewriter: OpenGOPRewriter
        public let sets: ParameterSets
        /// The source decode index each output sample copies; nil for a re-encoded one.
        let copies: [Int?]

        /// Whether output sample `n` has the source's pictures decoded just before and after it.
        public func continuing(_ n: Int) -> Bool {
            guard let i = copies[n], n > 0, n + 1 < copies.count else { return false }
            return copies[n - 1] == i - 1 && copies[n + 1] == i + 1
        }
    }

    /// The rewriting an export needs, or nil when no copied run resumes at a recovery point.
    /// `record` is the stream's `avcC`, `rendered` the output's sets when frames are re-encoded.
    public static func plan(recoveryPoints: Set<Int>, record: [UInt8], rendered: ParameterSets?, copies: [Int?]) -> Resumed? {
        guard !recoveryPoints.isEmpty, let resume = try? OpenGOPResume(avcC: record),
              let own = ParameterSets(avcC: record) else { return nil }
        let sets = (rendered ?? own).allowingFrameNumGaps(ids: Set(own.sequence.compactMap { SequenceParameterSet($0)?.id }))
        let resumed = Resumed(rewriter: OpenGOPRewriter(resume: resume, output: sets), sets: sets, copies: copies)
        let needed = copies.indices.contains { n in copies[n].map(recoveryPoints.contains) == true && !resumed.continuing(n) }
        return needed ? resumed : nil
    }

    init(resume: OpenGOPResume, output: ParameterSets) {
        self.resume = resume
        self.output = ParameterTable(output)
    }

    /// A re-encoded sample was written; `idr` when it starts its span.
    public func encoded(_ sample: [UInt8], idr: Bool) {
        run = nil
        guard idr else { return }
        sample.withUnsafeBufferPointer { bytes in
            let slice = resume.units(bytes).first { H264NALType.of($0[0]) == .idr }
            lastIDR = slice.flatMap { unit in
                (try? SliceHeader(header: unit[0], rbsp: RBSP.unescaped(unit.dropFirst().prefix(64)), table: output))?.idrPicID
            } ?? lastIDR
        }
    }

    /// The bytes to write for copied sample `sample`, or nil to write it unchanged.
    /// `continuing`: the output has the source's pictures decoded just before and just after it,
    /// so a recovery point there needs no rewriting.
    public func copied(_ sample: UnsafeBufferPointer<UInt8>, continuing: Bool) throws -> [UInt8]? {
        switch try resume.picture(sample) {
        case .idr(let id):
            run = nil
            lastIDR = id
            return nil
        case .recoveryPoint where !continuing:
            let slice = try firstSlice(sample)
            // Two IDR access units in a row need different ids: not the previous IDR's, and not
            // 0 or 1, which x264 gives its IDR pictures (a re-encoded span's, a copied one's).
            let id = (2...3).first { $0 != lastIDR } ?? 2
            lastIDR = id
            run = Run(pocLsb: slice.pocLsb ?? 0, lastFrameNum: slice.frameNum)
            return try rewrite(sample, dropping: OpenGOPResume.isOnlyRecoveryPointSEI) { _ in
                SliceHeader.Rewrite(nalType: .idr, frameNum: 0, idrPicID: id, pocLsb: 0, marking: .idr(noOutputOfPriorPics: false, longTerm: false))
            }
        default:
            guard var run else { return nil }
            let slice = try firstSlice(sample)
            guard let sps = output.sets(pps: slice.ppsID)?.sps else { return nil }
            let maxFrameNum = 1 << sps.log2MaxFrameNum
            run.counted += (slice.frameNum - run.lastFrameNum + maxFrameNum) % maxFrameNum
            run.lastFrameNum = slice.frameNum
            self.run = run
            let counted = run.counted, start = run.pocLsb
            return try rewrite(sample, dropping: { _ in false }) { slice in
                SliceHeader.Rewrite(nalType: slice.nalType, frameNum: counted, idrPicID: nil,
                                    pocLsb: slice.pocLsb.map { ($0 - start + (1 << sps.log2MaxPocLsb)) % (1 << sps.log2MaxPocLsb) },
                                    marking: Self.marking(slice.marking, counted: counted))
            }
        }
    }

    /// `marking` without the operations that mark a picture from before the recovery point
    /// unused: the picture `counted` frame numbers after the recovery point marks the one
    /// difference_of_pic_nums_minus1 + 1 before it.
    static func marking(_ marking: SliceHeader.Marking?, counted: Int) -> SliceHeader.Marking? {
        guard case .adaptive(let operations) = marking else { return marking }
        return .adaptive(operations.filter { $0.operation != 1 || counted - ($0.arguments[0] + 1) >= 0 })
    }

    private func firstSlice(_ sample: UnsafeBufferPointer<UInt8>) throws -> SliceHeader {
        guard let unit = resume.units(sample).first(where: { H264NALType.of($0[0])?.isPictureSlice ?? false }) else {
            throw SliceHeader.Unsupported(description: "a picture has no slice")
        }
        return try resume.sliceHeader(unit)
    }

    /// `sample` with every slice rewritten as `change` says and the units `dropping` picks
    /// left out; other NAL units are kept as they are.
    private func rewrite(_ sample: UnsafeBufferPointer<UInt8>, dropping: (UnsafeBufferPointer<UInt8>) -> Bool,
                         change: (SliceHeader) -> SliceHeader.Rewrite) throws -> [UInt8] {
        var units: [[UInt8]] = []
        for unit in resume.units(sample) where !dropping(unit) {
            switch H264NALType.of(unit[0]) {
            case .slice?, .idr?:
                let slice = try resume.sliceHeader(unit)
                let rewrite = change(slice)
                guard rewrite.nalType != .idr || slice.kind == .i else {
                    throw SliceHeader.Unsupported(description: "a recovery point has slices that are not I slices")
                }
                units.append(try slice.rewritten(rewrite, unit: unit, table: output))
            case .sequenceParameterSet?:
                // An SPS repeated in the stream must allow the frame_num gaps as the output's does.
                units.append(SequenceParameterSet.allowingFrameNumGaps(Array(unit)) ?? Array(unit))
            default:
                units.append(Array(unit))
            }
        }
        return LengthPrefixedUnits.sample(units, lengthSize: resume.lengthSize)
    }
}
