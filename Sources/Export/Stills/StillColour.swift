import Foundation

/// The colour a still's samples are in, as the source's stream tags it (ITU-T H.273 code
/// points, as libav numbers them), and what each picture file can say about it:
/// - PNG: a `cICP` chunk with the code points as they are (any primaries and transfer,
///   PQ and HLG included), and an `sRGB` chunk as well for BT.709 pictures.
/// - JPEG and TIFF have no place for code points. They get an ICC profile where one describes
///   the picture (BT.709 or unspecified primaries: sRGB; Display P3 primaries: Display P3;
///   with an SDR transfer), EXIF `ColorSpace` 1 (sRGB) for the sRGB ones and 0xFFFF
///   (uncalibrated) for the rest. BT.2020 with PQ or HLG has no standard ICC form, so such a
///   JPEG or TIFF carries only `ColorSpace` 0xFFFF (and the XMP's `photoshop:ICCProfile` is
///   left out); ``said(in:)`` says so for the summary.
struct StillColour: Equatable {
    /// H.273 colour primaries and transfer characteristics (2: unspecified).
    let primaries: UInt8
    let transfer: UInt8

    static let unspecified: UInt8 = 2

    /// The colour of a picture whose primaries and transfer are coded as `primaries` and
    /// `transfer` (libav's raw values; 2 when unspecified).
    init(primaries: Int, transfer: Int) {
        self.primaries = (1..<256).contains(primaries) ? UInt8(primaries) : Self.unspecified
        self.transfer = (1..<256).contains(transfer) ? UInt8(transfer) : Self.unspecified
    }

    /// PNG's `cICP` values (primaries, transfer, RGB, full range); nil when either is unspecified.
    var cicp: [UInt8]? {
        primaries == Self.unspecified || transfer == Self.unspecified ? nil : [primaries, transfer, 0, 1]
    }

    /// Whether the transfer is an SDR one a gamma-like curve describes: BT.709, BT.601 (6),
    /// sRGB (13), BT.2020 10- and 12-bit (14, 15), gamma 2.2 (4), or unspecified.
    private var sdrTransfer: Bool { [1, 4, 6, 13, 14, 15, Self.unspecified].contains(transfer) }

    /// The ICC profile that describes the picture, or nil (see the type's comment).
    var profile: ICCProfile? {
        guard sdrTransfer else { return nil }
        switch primaries {
        case 1, Self.unspecified: return .sRGB
        case 12: return .displayP3
        default: return nil
        }
    }

    /// EXIF `ColorSpace`: 1 for sRGB, 0xFFFF (uncalibrated) otherwise.
    var exifColorSpace: UInt16 { profile == .sRGB ? 1 : 0xFFFF }

    /// What `format` says of the colour, for the summary: `cICP 9/18`, `ICC sRGB IEC61966-2.1`,
    /// or that a JPEG or TIFF cannot state it.
    func said(in format: StillFormat) -> String {
        if format == .png, let cicp { return "cICP \(cicp[0])/\(cicp[1])" + (profile == .sRGB ? " and sRGB" : "") }
        if let profile { return "ICC \(profile.rawValue)" }
        return format == .png ? "untagged (the source's primaries or transfer are unspecified)"
            : "uncalibrated: no ICC profile describes H.273 primaries \(primaries) with transfer \(transfer) (PNG's cICP can)"
    }
}
