/// An H.264 slice header (ITU-T H.264 7.3.3) read from a slice's RBSP, with where its fields lie,
/// and written back with a new NAL unit type, frame_num, idr_pic_id, pic_order_cnt_lsb and
/// dec_ref_pic_marking: what turning a copied open-GOP recovery point into an IDR picture, and
/// renumbering the pictures after it, changes (``OpenGOPResume``).
///
/// Everything between the rewritten fields is copied bit for bit. With CABAC the slice data
/// starts byte-aligned after `cabac_alignment_one_bits`, so the new header is padded with 1 bits
/// and the data bytes are copied as they are; with CAVLC the data follows the header at any bit,
/// so it is copied shifted, up to the `rbsp_stop_one_bit`, which is written again.
///
/// Read: progressive frames (frame_mbs_only), picture order count types 0 and 2, one slice
/// group, P, B and I slices. Refused (``Unsupported``): fields, picture order count type 1,
/// slice groups, SP and SI slices, and NAL unit types other than 1 and 5.
public struct SliceHeader: Equatable, Sendable {
    /// Why a slice header cannot be read or rewritten.
    public struct Unsupported: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// A memory_management_control_operation (H.264 8.2.5.4) and its arguments in syntax order
    /// (1: difference_of_pic_nums_minus1; 2: long_term_pic_num; 3: the difference and
    /// long_term_frame_idx; 4: max_long_term_frame_idx_plus1; 6: long_term_frame_idx).
    struct MemoryOperation: Equatable, Sendable {
        var operation: Int
        var arguments: [Int]
    }

    /// dec_ref_pic_marking (7.3.3.3).
    enum Marking: Equatable, Sendable {
        case idr(noOutputOfPriorPics: Bool, longTerm: Bool)
        case slidingWindow
        /// The operations, without the final 0.
        case adaptive([MemoryOperation])
    }

    enum Kind: Int, Sendable { case p = 0, b, i, sp, si }

    public internal(set) var nalRefIdc = 0
    public internal(set) var nalType = H264NALType.slice
    var firstMB = 0
    var kind = Kind.i
    public internal(set) var ppsID = 0
    public internal(set) var frameNum = 0
    var idrPicID: Int?
    var pocLsb: Int?
    /// A ref_pic_list_modification command (7.3.3.1): of list 0 or 1, its
    /// modification_of_pic_nums_idc and the value after it (abs_diff_pic_num_minus1 for 0 and 1).
    public struct ListModification: Equatable, Sendable {
        public internal(set) var list: Int
        public internal(set) var idc: Int
        public internal(set) var value: Int
    }

    /// The reference list modifications of both lists, in order, the final 3s left out.
    public internal(set) var modifications: [ListModification] = []
    /// Nil for a non-reference picture (nal_ref_idc 0).
    var marking: Marking?

    /// Where the fields are in the RBSP (after the NAL header byte), in bits; an absent field's
    /// range is empty, where it would be.
    private(set) var frameNumBits = 0..<0
    private(set) var idrPicIDBits = 0..<0
    private(set) var pocLsbBits = 0..<0
    private(set) var markingBits = 0..<0
    /// The bit after the header's last field (before CABAC's alignment bits).
    private(set) var headerEnd = 0

    /// What ``rewritten(_:rbsp:sets:)`` changes.
    struct Rewrite: Equatable, Sendable {
        var nalType: H264NALType
        var frameNum: Int
        var idrPicID: Int?
        var pocLsb: Int?
        var marking: Marking?
    }

    /// Reads the header of a slice NAL unit whose header byte is `header` and whose RBSP is
    /// `rbsp`, with the parameter sets it names from `table`.
    init(header: UInt8, rbsp: [UInt8], table: ParameterTable) throws {
        nalRefIdc = H264NALType.referenceIDC(header)
        guard let nalType = H264NALType.of(header), nalType.isPictureSlice else {
            throw Unsupported(description: "NAL unit type \(header & 0b1_1111) is not a slice this reads")
        }
        self.nalType = nalType
        var r = ExpGolombReader(rbsp)
        firstMB = try r.ue()
        guard let kind = Kind(rawValue: try r.ue() % 5) else { throw Unsupported(description: "a slice type is out of range") }
        self.kind = kind
        guard kind != .sp && kind != .si else { throw Unsupported(description: "it has SP or SI slices") }
        ppsID = try r.ue()
        guard let sets = table.sets(pps: ppsID) else { throw Unsupported(description: "a slice names a parameter set the stream does not have") }
        let (sps, pps) = sets
        guard sps.frameMBsOnly else { throw Unsupported(description: "it codes fields") }
        guard !sps.separateColourPlanes else { throw Unsupported(description: "it codes colour planes separately") }
        guard sps.pocType != 1 else { throw Unsupported(description: "its picture order count is of type 1") }
        guard pps.sliceGroups == 1 else { throw Unsupported(description: "it has several slice groups") }
        frameNumBits = r.position ..< r.position + sps.log2MaxFrameNum
        frameNum = try r.bits(sps.log2MaxFrameNum)
        let idrStart = r.position
        if nalType == .idr { idrPicID = try r.ue() }
        idrPicIDBits = idrStart..<r.position
        let pocStart = r.position
        if sps.pocType == 0 {
            pocLsb = try r.bits(sps.log2MaxPocLsb)
            pocLsbBits = pocStart..<r.position
            if pps.bottomFieldPicOrderInFramePresent { _ = try r.se() }
        } else {
            pocLsbBits = pocStart..<pocStart
        }
        if pps.redundantPicCntPresent { _ = try r.ue() }
        try readReferences(&r, sps: sps, pps: pps)
        let markingStart = r.position
        if nalRefIdc != 0 { marking = try Self.readMarking(&r, idr: nalType == .idr) }
        markingBits = markingStart..<r.position
        if pps.cabac && kind != .i { _ = try r.ue() }
        _ = try r.se()
        if pps.deblockingFilterControlPresent, try r.ue() != 1 { _ = try r.se(); _ = try r.se() }
        headerEnd = r.position
    }

    /// From direct_spatial_mv_pred_flag to pred_weight_table: the reference lists' sizes,
    /// modifications and weights, of which only the modifications are kept.
    private mutating func readReferences(_ r: inout ExpGolombReader, sps: SequenceParameterSet, pps: PictureParameterSet) throws {
        if kind == .b { _ = try r.bits(1) }
        var active = (pps.numRefIdxL0DefaultActive, pps.numRefIdxL1DefaultActive)
        if kind == .p || kind == .b, try r.bits(1) == 1 {
            active.0 = try r.ue() + 1
            if kind == .b { active.1 = try r.ue() + 1 }
        }
        let lists = kind == .b ? 2 : kind == .p ? 1 : 0
        for list in 0..<lists where try r.bits(1) == 1 {
            while true {
                let idc = try r.ue()
                if idc == 3 { break }
                guard idc <= 5 else { throw Unsupported(description: "a reference list modification is out of range") }
                modifications.append(ListModification(list: list, idc: idc, value: try r.ue()))
                guard modifications.count <= 66 else { throw Unsupported(description: "a slice has too many reference list modifications") }
            }
        }
        guard (pps.weightedPred && kind == .p) || (pps.weightedBipredIdc == 1 && kind == .b) else { return }
        _ = try r.ue()
        let chroma = sps.chromaArrayType != 0
        if chroma { _ = try r.ue() }
        for count in [active.0, active.1].prefix(lists) {
            for _ in 0..<count {
                if try r.bits(1) == 1 { _ = try r.se(); _ = try r.se() }
                if chroma, try r.bits(1) == 1 { for _ in 0..<4 { _ = try r.se() } }
            }
        }
    }

    private static func readMarking(_ r: inout ExpGolombReader, idr: Bool) throws -> Marking {
        if idr { return .idr(noOutputOfPriorPics: try r.bits(1) == 1, longTerm: try r.bits(1) == 1) }
        guard try r.bits(1) == 1 else { return .slidingWindow }
        var operations: [MemoryOperation] = []
        while true {
            let operation = try r.ue()
            let count: Int
            switch operation {
            case 0: return .adaptive(operations)
            case 1, 2, 4, 6: count = 1
            case 3: count = 2
            case 5: count = 0
            default: throw Unsupported(description: "a memory management operation is out of range")
            }
            operations.append(MemoryOperation(operation: operation, arguments: try (0..<count).map { _ in try r.ue() }))
            guard operations.count <= 66 else { throw Unsupported(description: "a slice has too many memory management operations") }
        }
    }

    /// The slice NAL unit (header byte first, emulation prevention added) of `rbsp`, read as
    /// this header, with the fields of `change`; CABAC or CAVLC as `table` says.
    func rewritten(_ change: Rewrite, rbsp: [UInt8], table: ParameterTable) throws -> [UInt8] {
        guard let sets = table.sets(pps: ppsID) else { throw Unsupported(description: "a slice names a parameter set the stream does not have") }
        var w = header(change, rbsp: rbsp, sps: sets.sps)
        if sets.pps.cabac {
            w.align(with: 1)
            w.append(bytes: rbsp[min(rbsp.count, (headerEnd + 7) / 8)...])
        } else {
            guard let stop = rbsp.lastIndex(where: { $0 != 0 }) else { throw Unsupported(description: "a slice has no stop bit") }
            let stopBit = stop * 8 + 7 - rbsp[stop].trailingZeroBitCount
            guard stopBit >= headerEnd else { throw Unsupported(description: "a slice ends inside its header") }
            w.copy(rbsp, bits: headerEnd..<stopBit)
            w.bits(1, 1)
            w.align(with: 0)
        }
        return [change.nalType.header(referenceIDC: nalRefIdc)] + RBSP.escaped(w.bytes)
    }

    /// Slice NAL unit `unit` (header byte first, as stored) rewritten as `change` says. When the
    /// new header is as long as the old (frame_num and pic_order_cnt_lsb have fixed widths), only
    /// the bytes up to the first nonzero byte after the header are unescaped, patched and escaped
    /// again, and the rest is kept as stored: a nonzero byte ends any run of zeros, so emulation
    /// prevention after it is the same. Otherwise the whole RBSP is rewritten.
    func rewritten(_ change: Rewrite, unit: UnsafeBufferPointer<UInt8>, table: ParameterTable) throws -> [UInt8] {
        guard let sps = table.sets(pps: ppsID)?.sps else { throw Unsupported(description: "a slice names a parameter set the stream does not have") }
        let payload = UnsafeBufferPointer(rebasing: unit.dropFirst())
        // The RBSP up to a nonzero byte past the header's last byte, and where it ends in `payload`.
        var prefix: [UInt8] = [], zeros = 0, end = 0
        while end < payload.count && (prefix.count * 8 < headerEnd + 8 || prefix.last == 0) {
            let b = payload[end]
            end += 1
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            prefix.append(b)
        }
        var w = header(change, rbsp: prefix, sps: sps)
        guard w.count == headerEnd, prefix.count * 8 >= headerEnd + 8, prefix.last != 0 else {
            return try rewritten(change, rbsp: RBSP.unescaped(payload), table: table)
        }
        w.copy(prefix, bits: headerEnd..<prefix.count * 8)
        return [change.nalType.header(referenceIDC: nalRefIdc)] + RBSP.escaped(w.bytes) + payload[end...]
    }

    /// The header's bits `[0, headerEnd)` of `rbsp` with the fields of `change`.
    private func header(_ change: Rewrite, rbsp: [UInt8], sps: SequenceParameterSet) -> BitWriter {
        var w = BitWriter()
        w.copy(rbsp, bits: 0..<frameNumBits.lowerBound)
        w.bits(change.frameNum & ((1 << sps.log2MaxFrameNum) - 1), sps.log2MaxFrameNum)
        if change.nalType == .idr { w.ue(change.idrPicID ?? 0) }
        w.copy(rbsp, bits: idrPicIDBits.upperBound..<pocLsbBits.lowerBound)
        if let lsb = change.pocLsb, sps.pocType == 0 { w.bits(lsb & ((1 << sps.log2MaxPocLsb) - 1), sps.log2MaxPocLsb) }
        w.copy(rbsp, bits: pocLsbBits.upperBound..<markingBits.lowerBound)
        if nalRefIdc != 0 { Self.write(change.marking ?? .slidingWindow, to: &w) }
        w.copy(rbsp, bits: markingBits.upperBound..<headerEnd)
        return w
    }

    private static func write(_ marking: Marking, to w: inout BitWriter) {
        switch marking {
        case .idr(let noOutput, let longTerm):
            w.bits(noOutput ? 1 : 0, 1)
            w.bits(longTerm ? 1 : 0, 1)
        case .slidingWindow:
            w.bits(0, 1)
        case .adaptive(let operations):
            w.bits(1, 1)
            for op in operations {
                w.ue(op.operation)
                for argument in op.arguments { w.ue(argument) }
            }
            w.ue(0)
        }
    }
}
