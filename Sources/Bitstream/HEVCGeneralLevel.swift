/// `general_level_idc` in an HEVC VPS or SPS (ITU-T H.265 7.3.3 `profile_tier_level()`): the
/// byte after the general profile, its compatibility flags and its constraint flags, 17 bytes
/// into a VPS's RBSP and 14 into an SPS's (7.3.2.1, 7.3.2.2), counting the two header bytes.
public enum HEVCGeneralLevel {
    /// `unit` with `general_level_idc` raised to `level` when it is a VPS or SPS that signals a
    /// lower one; any other unit as it is.
    public static func raised(to level: Int, in unit: [UInt8]) -> [UInt8] {
        guard let header = unit.first, level > 0, level < 256 else { return unit }
        let offset: Int
        switch HEVCNALType.of(header) {
        case .videoParameterSet?: offset = 2 + 4 + 1 + 4 + 6
        case .sequenceParameterSet?: offset = 2 + 1 + 1 + 4 + 6
        default: return unit
        }
        var rbsp = Array(unit.prefix(2)) + RBSP.unescaped(unit.dropFirst(2))
        guard rbsp.count > offset, Int(rbsp[offset]) < level else { return unit }
        rbsp[offset] = UInt8(level)
        return Array(rbsp.prefix(2)) + RBSP.escaped(Array(rbsp.dropFirst(2)))
    }
}
