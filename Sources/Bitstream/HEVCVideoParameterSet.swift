/// An HEVC video parameter set (ITU-T H.265 7.3.2.1), read as far as its id: all a smart cut
/// changes in it (``HEVCIDRewriter``); the rest is copied.
struct HEVCVideoParameterSet: Equatable {
    /// `vps_video_parameter_set_id`, u(4).
    let id: Int
    /// Where the id lies in the RBSP.
    let idBits: Range<Int>

    init(_ unit: HEVCNALUnit) throws {
        guard unit.type == .videoParameterSet else {
            throw SyntaxError(element: "nal_unit_type", problem: .unsupported("is \(unit.typeValue), not a video parameter set"))
        }
        var r = SyntaxReader(unit.rbsp)
        id = try r.u("vps_video_parameter_set_id", 4)
        idBits = r.element("vps_video_parameter_set_id")!.bits
    }

    /// `unit` (a VPS) with id `id`.
    static func renumbered(_ unit: HEVCNALUnit, id: Int) throws -> HEVCNALUnit {
        let vps = try HEVCVideoParameterSet(unit)
        guard (0...15).contains(id) else { throw SyntaxError(element: "vps_video_parameter_set_id", problem: .outOfRange(id, 0...15)) }
        let rbsp = try RBSPRewrite.replacing(vps.idBits, in: unit.rbsp, end: .trailingBits) { $0.bits(id, 4) }
        return HEVCNALUnit(header: unit.header, rbsp: rbsp)
    }
}
