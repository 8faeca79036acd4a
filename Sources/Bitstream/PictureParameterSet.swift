/// The fields of an H.264 picture parameter set (ITU-T H.264 7.3.2.2) that decide how a slice
/// header is laid out, which ``SliceHeader`` needs to find and rewrite its fields.
public struct PictureParameterSet: Equatable, Sendable {
    var id = 0
    var spsID = 0
    /// CABAC (`entropy_coding_mode_flag`): the slice data then starts byte-aligned.
    var cabac = false
    var bottomFieldPicOrderInFramePresent = false
    var sliceGroups = 1
    var numRefIdxL0DefaultActive = 1
    var numRefIdxL1DefaultActive = 1
    var weightedPred = false
    var weightedBipredIdc = 0
    var deblockingFilterControlPresent = false
    var redundantPicCntPresent = false

    /// Parses a NAL unit (header byte first); nil when it is not a readable PPS. A PPS with
    /// several slice groups is read up to their count (the rest is not needed to refuse it).
    init?(_ unit: [UInt8]) {
        guard unit.count > 1, H264NALType.of(unit[0]) == .pictureParameterSet else { return nil }
        var r = ExpGolombReader(RBSP.unescaped(unit.dropFirst()))
        guard (try? parse(&r)) != nil else { return nil }
    }

    private mutating func parse(_ r: inout ExpGolombReader) throws {
        id = try r.ue()
        spsID = try r.ue()
        cabac = try r.bits(1) == 1
        bottomFieldPicOrderInFramePresent = try r.bits(1) == 1
        sliceGroups = try r.ue() + 1
        guard sliceGroups == 1 else { return }
        numRefIdxL0DefaultActive = try r.ue() + 1
        numRefIdxL1DefaultActive = try r.ue() + 1
        weightedPred = try r.bits(1) == 1
        weightedBipredIdc = try r.bits(2)
        _ = try r.se(); _ = try r.se(); _ = try r.se()
        deblockingFilterControlPresent = try r.bits(1) == 1
        _ = try r.bits(1)
        redundantPicCntPresent = try r.bits(1) == 1
    }
}
