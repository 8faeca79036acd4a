/// Whether a copied run may resume at an open GOP's recovery point (issue 41), and what each
/// picture of an H.264 stream is for that: read from the stream's `avcC` parameter sets and
/// its length-prefixed samples.
///
/// x264's `open-gop` streams have one IDR picture, at the start; every later keyframe is a
/// non-IDR I picture with a recovery-point SEI (`recovery_frame_cnt` 0): decoding from it gives
/// every picture shown from it on, but its leading pictures (decoded after it, shown before it)
/// refer to the GOP before. A smart cut never keeps those (they are shown before the I, so they
/// fall into the re-encoded span), and ``OpenGOPRewriter`` rewrites the I as an IDR picture
/// and renumbers the pictures after it, so the re-encoded span's sequence ends and the copied
/// one starts cleanly. That needs slice headers this project can read and write
/// (``SliceHeader``) and nothing the renumbering cannot follow: long-term references, memory
/// management operation 5 and reference list modifications of long-term pictures are refused,
/// and copying then resumes only at IDR pictures, as before.
public struct OpenGOPResume {
    public let table: ParameterTable
    /// Bytes in each NAL unit's length prefix.
    let lengthSize: Int

    /// What a sample's picture is.
    public enum Picture: Equatable, Sendable {
        case idr(id: Int)
        /// A non-IDR I picture with a recovery-point SEI whose recovery_frame_cnt is 0.
        case recoveryPoint
        case other
    }

    /// Reads the stream's parameter sets; throws why its recovery points cannot be rewritten.
    public init(avcC record: [UInt8]) throws {
        guard let sets = ParameterSets(avcC: record) else {
            throw SliceHeader.Unsupported(description: "its parameter sets are not in an avcC record")
        }
        table = ParameterTable(sets)
        lengthSize = sets.lengthSize
        guard table.sequences.count == sets.sequence.count, table.pictures.count == sets.picture.count, !sets.picture.isEmpty else {
            throw SliceHeader.Unsupported(description: "its parameter sets cannot be read")
        }
        for sps in table.sequences.values {
            guard sps.frameMBsOnly else { throw SliceHeader.Unsupported(description: "it codes fields") }
            guard sps.pocType != 1 else { throw SliceHeader.Unsupported(description: "its picture order count is of type 1") }
        }
        guard table.pictures.values.allSatisfy({ $0.sliceGroups == 1 }) else {
            throw SliceHeader.Unsupported(description: "it has several slice groups")
        }
    }

    /// The NAL units of a length-prefixed sample.
    func units(_ sample: UnsafeBufferPointer<UInt8>) -> [UnsafeBufferPointer<UInt8>] {
        Array(LengthPrefixedUnits(sample, lengthSize: lengthSize))
    }

    /// The header of slice NAL unit `unit`; only its first bytes are unescaped unless the
    /// header runs past them.
    func sliceHeader(_ unit: UnsafeBufferPointer<UInt8>) throws -> SliceHeader {
        let payload = unit.dropFirst()
        do {
            return try SliceHeader(header: unit[0], rbsp: RBSP.unescaped(payload.prefix(192)), table: table)
        } catch is ExpGolombReader.End where payload.count > 192 {
            return try SliceHeader(header: unit[0], rbsp: RBSP.unescaped(payload), table: table)
        } catch is ExpGolombReader.End {
            throw SliceHeader.Unsupported(description: "a slice header is cut short")
        }
    }

    /// What `sample`'s picture is, from its first slice; throws when the picture uses what the
    /// renumbering after a rewritten recovery point cannot follow.
    func picture(_ sample: UnsafeBufferPointer<UInt8>) throws -> Picture {
        try read(sample).picture
    }

    /// What `sample`'s picture is, and its first slice's header (nil when it has no slice).
    public func read(_ sample: UnsafeBufferPointer<UInt8>) throws -> (picture: Picture, slice: SliceHeader?) {
        let units = units(sample)
        guard let first = units.first(where: { H264NALType.of($0[0])?.isPictureSlice ?? false }) else { return (.other, nil) }
        let slice: SliceHeader
        do { slice = try sliceHeader(first) } catch let error as SliceHeader.Unsupported { throw error } catch {
            throw SliceHeader.Unsupported(description: "a slice header cannot be read")
        }
        if slice.nalType == .idr { return (.idr(id: slice.idrPicID ?? 0), slice) }
        guard slice.modifications.allSatisfy({ $0.idc <= 1 }) else {
            throw SliceHeader.Unsupported(description: "its reference lists name long-term pictures")
        }
        if case .adaptive(let operations) = slice.marking, operations.contains(where: { $0.operation != 1 }) {
            throw SliceHeader.Unsupported(description: "it uses long-term references or memory management operation 5")
        }
        guard slice.kind == .i, units.contains(where: Self.isRecoveryPointSEI) else { return (.other, slice) }
        return (.recoveryPoint, slice)
    }

    /// Whether `unit` is an SEI NAL unit holding a recovery point with recovery_frame_cnt 0.
    static func isRecoveryPointSEI(_ unit: UnsafeBufferPointer<UInt8>) -> Bool {
        guard unit.count > 2, H264NALType.of(unit[0]) == .sei else { return false }
        guard let message = SEIMessages(RBSP.unescaped(unit.dropFirst())).first(where: { $0.type == recoveryPointPayloadType }) else {
            return false
        }
        var r = ExpGolombReader(message.payload)
        return (try? r.ue()) == 0
    }

    /// Whether `unit` is an SEI NAL unit that holds only a recovery point (dropped when its
    /// picture becomes an IDR picture, where it means nothing).
    static func isOnlyRecoveryPointSEI(_ unit: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isRecoveryPointSEI(unit) else { return false }
        let rbsp = RBSP.unescaped(unit.dropFirst())
        // One message: type 6, a size byte, the payload, then the trailing bits.
        return rbsp.count >= 3 && Int(rbsp[0]) == recoveryPointPayloadType && Int(rbsp[1]) + 3 == rbsp.count
    }

    /// The SEI payload type of a recovery point (ITU-T H.264 D.1.8).
    static let recoveryPointPayloadType = 6
}
