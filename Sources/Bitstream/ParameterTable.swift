/// An H.264 stream's sequence and picture parameter sets by id, parsed: what reading a slice
/// header needs (its PPS, and that PPS's SPS).
public struct ParameterTable: Equatable, Sendable {
    private(set) var sequences: [Int: SequenceParameterSet] = [:]
    private(set) var pictures: [Int: PictureParameterSet] = [:]

    /// The sets of an `avcC` record; a set that does not parse is left out.
    init(_ sets: ParameterSets) {
        for unit in sets.sequence { if let sps = SequenceParameterSet(unit) { sequences[sps.id] = sps } }
        for unit in sets.picture { if let pps = PictureParameterSet(unit) { pictures[pps.id] = pps } }
    }

    /// The PPS with `id` and its SPS, or nil when either is missing.
    public func sets(pps id: Int) -> (sps: SequenceParameterSet, pps: PictureParameterSet)? {
        guard let pps = pictures[id], let sps = sequences[pps.spsID] else { return nil }
        return (sps, pps)
    }
}
