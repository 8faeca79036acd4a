import Foundation

/// A matrix/TRC ICC profile (version 4.3, display class) for RGB pictures with D65 white and
/// the sRGB curve (IEC 61966-2-1, as a `para` function of type 3): sRGB (BT.709 primaries) and
/// Display P3 (SMPTE EG 432-1 primaries). The colorants are the primaries' XYZ adapted to the
/// D50 connection space with the Bradford matrix (the `chad` tag), as ICC.1:2022 asks. Written
/// into a JPEG's APP2 `ICC_PROFILE` segment and a TIFF's tag 34675.
enum ICCProfile: String, Equatable {
    case sRGB = "sRGB IEC61966-2.1"
    case displayP3 = "Display P3"

    /// CIE xy of red, green and blue.
    private var primaries: [(Double, Double)] {
        switch self {
        case .sRGB: [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
        case .displayP3: [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
        }
    }

    /// Bradford adaptation from D65 to D50 (ICC.1:2022 Annex E).
    private static let chad: [[Double]] = [[1.0478112, 0.0228866, -0.0501270],
                                           [0.0295424, 0.9904844, -0.0170491],
                                           [-0.0092345, 0.0150436, 0.7521316]]
    private static let d50 = [0.9642, 1.0, 0.8249]

    /// The RGB to XYZ matrix for D65 white (columns: red, green, blue), adapted to D50.
    var colorants: [[Double]] {
        let white = (0.3127, 0.3290)
        func xyz(_ p: (Double, Double)) -> [Double] { [p.0 / p.1, 1, (1 - p.0 - p.1) / p.1] }
        let m = primaries.map(xyz)                     // m[c] = XYZ of primary c at Y = 1
        let w = xyz(white)
        // Scale each primary so that R = G = B = 1 gives the white: solve [m] s = w.
        let s = Self.solve(columns: m, w)
        let columns = (0..<3).map { c in m[c].map { $0 * s[c] } }
        return columns.map { col in (0..<3).map { r in (0..<3).reduce(0) { $0 + Self.chad[r][$1] * col[$1] } } }
    }

    /// Cramer's rule for the 3x3 system whose matrix has `columns`.
    private static func solve(columns c: [[Double]], _ b: [Double]) -> [Double] {
        func det(_ a: [Double], _ b: [Double], _ d: [Double]) -> Double {
            a[0] * (b[1] * d[2] - b[2] * d[1]) - b[0] * (a[1] * d[2] - a[2] * d[1]) + d[0] * (a[1] * b[2] - a[2] * b[1])
        }
        let whole = det(c[0], c[1], c[2])
        return [det(b, c[1], c[2]) / whole, det(c[0], b, c[2]) / whole, det(c[0], c[1], b) / whole]
    }

    /// The profile's bytes.
    var bytes: [UInt8] {
        let curve = Self.tag("para", [0, 3, 0, 0] + [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045].flatMap(Self.fixed))
        let rgb = colorants
        var tags: [(String, [UInt8])] = [
            ("desc", Self.text(rawValue)), ("cprt", Self.text("No copyright, use freely")),
            ("wtpt", Self.tag("XYZ ", Self.d50.flatMap(Self.fixed))),
            ("chad", Self.tag("sf32", Self.chad.flatMap { $0.flatMap(Self.fixed) })),
        ]
        for (k, name) in ["rXYZ", "gXYZ", "bXYZ"].enumerated() { tags.append((name, Self.tag("XYZ ", rgb[k].flatMap(Self.fixed)))) }
        // The three curves share one body, as ICC allows.
        let tableEnd = 128 + 4 + 12 * (tags.count + 3)
        var body: [UInt8] = [], table = Self.be32(UInt32(tags.count + 3))
        var curveAt = 0
        for (name, data) in tags + [("rTRC", curve)] {
            let at = tableEnd + body.count
            if name == "rTRC" { curveAt = at }
            table += Array(name.utf8) + Self.be32(UInt32(at)) + Self.be32(UInt32(data.count))
            body += data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        }
        for name in ["gTRC", "bTRC"] { table += Array(name.utf8) + Self.be32(UInt32(curveAt)) + Self.be32(UInt32(curve.count)) }
        let size = tableEnd + body.count
        var header = Self.be32(UInt32(size)) + [0, 0, 0, 0] + [0x04, 0x30, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [2024, 1, 1, 0, 0, 0].flatMap { Self.be16(UInt16($0)) } + Array("acsp".utf8)
        header += [UInt8](repeating: 0, count: 24) + Self.be32(0)               // platform … attributes, intent
        header += Self.d50.flatMap(Self.fixed) + [UInt8](repeating: 0, count: 4 + 16 + 28)
        return header + table + body
    }

    private static func tag(_ type: String, _ data: [UInt8]) -> [UInt8] { Array(type.utf8) + [0, 0, 0, 0] + data }

    /// A `mluc` tag with one en-US record.
    private static func text(_ s: String) -> [UInt8] {
        let utf16 = s.utf16.flatMap { be16($0) }
        return tag("mluc", be32(1) + be32(12) + Array("enUS".utf8) + be32(UInt32(utf16.count)) + be32(28) + utf16)
    }

    /// s15Fixed16Number.
    private static func fixed(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
