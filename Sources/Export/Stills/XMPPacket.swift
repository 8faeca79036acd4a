import Foundation

/// The still's capture metadata as an XMP packet (ISO 16684-1), the same facts as its EXIF:
/// `tiff:Make` and `tiff:Model`, `exif:DateTimeOriginal` and `xmp:CreateDate` (ISO 8601, with
/// the UTC offset when known), `exif:GPSLatitude`/`GPSLongitude` (`DDD,MM.mmmmmmK`) and
/// `exif:GPSAltitude` with its reference, `photoshop:ICCProfile` naming the profile written,
/// and `xmp:CreatorTool`. PNG holds it in an `iTXt` chunk named `XML:com.adobe.xmp`, JPEG in an
/// APP1 segment after the EXIF one, TIFF in tag 700.
enum XMPPacket {
    static func packet(_ m: CaptureMetadata, profile: ICCProfile?) -> [UInt8] {
        var fields: [(String, String)] = [("xmp:CreatorTool", "slowpoke")]
        if let make = m.make { fields.append(("tiff:Make", make)) }
        if let model = m.model { fields.append(("tiff:Model", model)) }
        if let date = m.dateTime.flatMap({ iso8601($0, offset: m.offset) }) {
            fields += [("exif:DateTimeOriginal", date), ("xmp:CreateDate", date)]
        }
        if let latitude = m.latitude, let longitude = m.longitude {
            fields += [("exif:GPSVersionID", "2.3.0.0"),
                       ("exif:GPSLatitude", coordinate(latitude, positive: "N", negative: "S")),
                       ("exif:GPSLongitude", coordinate(longitude, positive: "E", negative: "W"))]
            if let altitude = m.altitude {
                fields += [("exif:GPSAltitudeRef", altitude < 0 ? "1" : "0"),
                           ("exif:GPSAltitude", "\(Int(min(abs(altitude) * 1000, 4e9).rounded()))/1000")]
            }
        }
        if let profile { fields.append(("photoshop:ICCProfile", profile.rawValue)) }
        let attributes = fields.map { "\n   \($0.0)=\"\(escaped($0.1))\"" }.joined()
        let text = """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
               xmlns:xmp="http://ns.adobe.com/xap/1.0/"
               xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
               xmlns:exif="http://ns.adobe.com/exif/1.0/"
               xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"\(attributes)/>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
        return Array(text.utf8)
    }

    /// EXIF's `2024:05:01 14:34:56` and `+02:00` as `2024-05-01T14:34:56+02:00`.
    static func iso8601(_ date: String, offset: String?) -> String? {
        let parts = date.split(separator: " ")
        guard parts.count == 2 else { return nil }
        return parts[0].replacingOccurrences(of: ":", with: "-") + "T" + parts[1] + (offset ?? "")
    }

    /// XMP's GPSCoordinate: whole degrees, decimal minutes and the hemisphere (`37,20.094000N`).
    static func coordinate(_ value: Double, positive: String, negative: String) -> String {
        let degrees = abs(value).rounded(.down)
        let minutes = (abs(value) - degrees) * 60
        return "\(Int(degrees)),\(String(format: "%.6f", minutes))\(value < 0 ? negative : positive)"
    }

    /// `s` as an XML attribute value: markup characters as entities, controls left out.
    static func escaped(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: if scalar.value >= 0x20 && scalar.value != 0x7F { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
