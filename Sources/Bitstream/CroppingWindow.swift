/// The part of the decoded picture a decoder outputs, as a sequence parameter set states it:
/// H.264's `frame_cropping_flag` and `frame_crop_{left,right,top,bottom}_offset` (7.4.2.1.1)
/// and HEVC's `conformance_window_flag` and `conf_win_*_offset` (7.4.3.2.1), both counted in
/// crop units (CropUnitX/Y: 2 for 4:2:0, 1 for 4:4:4; H.264 doubles CropUnitY for field-coded
/// streams). Rewriting them crops a stream without re-encoding: every slice is copied, and
/// decoders show the smaller picture. Here the window is in luma samples.
public struct CroppingWindow: Equatable, Sendable {
    /// Luma samples removed at each edge.
    public var left = 0, right = 0, top = 0, bottom = 0
    /// The coded picture's size (macroblocks or `pic_width_in_luma_samples`), before cropping.
    public let codedWidth: Int, codedHeight: Int
    /// The grid the window's edges fall on (CropUnitX, CropUnitY).
    public let unitX: Int, unitY: Int

    /// The picture a decoder outputs.
    public var width: Int { codedWidth - left - right }
    public var height: Int { codedHeight - top - bottom }

    /// The window of a stream's first SPS: an `avcC` or `hvcC` record's.
    public init(record: [UInt8], hevc: Bool) throws(CropRefusal) {
        let unit = hevc ? HEVCParameterSets(hvcC: record).flatMap { Self.firstSPS(in: $0.parameterSetUnits, hevc: true) }
                        : ParameterSets(avcC: record)?.sequence.first
        guard let unit else { throw .unreadable("the configuration record holds no sequence parameter set") }
        self = try Self.read(unit, hevc: hevc).window
    }

    init(codedWidth: Int, codedHeight: Int, unitX: Int, unitY: Int) {
        (self.codedWidth, self.codedHeight, self.unitX, self.unitY) = (codedWidth, codedHeight, unitX, unitY)
    }

    /// This window narrowed to `width` x `height` at `x`,`y` of the picture it outputs now (the
    /// existing window adds to the new one); throws when the rectangle does not fit or an edge
    /// is off the crop grid.
    public func cropped(width w: Int, height h: Int, x: Int, y: Int) throws(CropRefusal) -> CroppingWindow {
        guard w > 0, h > 0, x >= 0, y >= 0, x + w <= width, y + h <= height else {
            throw .outside("the crop (\(w)x\(h) at \(x),\(y)) does not fit the \(width)x\(height) picture")
        }
        var out = self
        out.left += x
        out.top += y
        out.right += width - x - w
        out.bottom += height - y - h
        for (name, value, unit) in [("left edge", x, unitX), ("top edge", y, unitY), ("right edge", x + w, unitX), ("bottom edge", y + h, unitY)]
            where value % unit != 0 {
            throw .offGrid("the crop's \(name) (\(value)) is not a multiple of \(unit), the grid the stream's chroma samples allow a cropping window on")
        }
        return out
    }

    /// The window and syntax elements of SPS NAL unit `unit` (header first).
    static func read(_ unit: [UInt8], hevc: Bool) throws(CropRefusal) -> (window: CroppingWindow, elements: [SyntaxReader.Element], rbsp: [UInt8]) {
        let elements: [SyntaxReader.Element], rbsp: [UInt8]
        if hevc {
            guard let nal = HEVCNALUnit(unit) else { throw .unreadable("an SPS is shorter than its header") }
            do { elements = try HEVCSequenceParameterSet(nal).elements } catch { throw .unreadable("an SPS cannot be read: \(error)") }
            rbsp = nal.rbsp
        } else {
            guard let list = SequenceParameterSet.elements(of: unit) else { throw .unreadable("an SPS cannot be read") }
            (elements, rbsp) = (list, RBSP.unescaped(unit.dropFirst()))
        }
        func value(_ name: String) -> Int? { elements.last { $0.name == name }?.value }
        let chroma = value("chroma_format_idc") ?? 1, separate = value("separate_colour_plane_flag") ?? 0
        let subWidth = separate == 1 || chroma == 0 || chroma == 3 ? 1 : 2, subHeight = separate == 1 || chroma != 1 ? 1 : 2
        var window: CroppingWindow
        let offsets: [String]
        if hevc {
            window = CroppingWindow(codedWidth: value("pic_width_in_luma_samples") ?? 0, codedHeight: value("pic_height_in_luma_samples") ?? 0,
                                    unitX: subWidth, unitY: subHeight)
            offsets = ["conf_win_left_offset", "conf_win_right_offset", "conf_win_top_offset", "conf_win_bottom_offset"]
        } else {
            let frames = value("frame_mbs_only_flag") ?? 1
            window = CroppingWindow(codedWidth: ((value("pic_width_in_mbs_minus1") ?? 0) + 1) * 16,
                                    codedHeight: ((value("pic_height_in_map_units_minus1") ?? 0) + 1) * 16 * (2 - frames),
                                    unitX: subWidth, unitY: subHeight * (2 - frames))
            offsets = ["frame_crop_left_offset", "frame_crop_right_offset", "frame_crop_top_offset", "frame_crop_bottom_offset"]
        }
        if let l = value(offsets[0]), let r = value(offsets[1]), let t = value(offsets[2]), let b = value(offsets[3]) {
            (window.left, window.right) = (l * window.unitX, r * window.unitX)
            (window.top, window.bottom) = (t * window.unitY, b * window.unitY)
        }
        return (window, elements, rbsp)
    }

    /// SPS NAL unit `unit` (header first) stating this window instead of its own; every other
    /// element and bit as it was (the VUI and what follows are copied, the trailing bits
    /// written again where they now fall).
    public func written(into unit: [UInt8], hevc: Bool) throws(CropRefusal) -> [UInt8] {
        let (old, elements, rbsp) = try Self.read(unit, hevc: hevc)
        guard old.codedWidth == codedWidth, old.codedHeight == codedHeight, old.unitX == unitX, old.unitY == unitY else {
            throw .unreadable("an SPS codes a \(old.codedWidth)x\(old.codedHeight) picture, not the \(codedWidth)x\(codedHeight) one the window is for")
        }
        let flagName = hevc ? "conformance_window_flag" : "frame_cropping_flag"
        guard let at = elements.firstIndex(where: { $0.name == flagName }) else { throw .unreadable("an SPS has no \(flagName)") }
        let end = elements[at].value == 1 ? elements[at + 4].bits.upperBound : elements[at].bits.upperBound
        let cropping = left + right + top + bottom > 0
        let out: [UInt8]
        do {
            out = try RBSPRewrite.replacing(elements[at].bits.lowerBound ..< end, in: rbsp, end: .trailingBits) { w in
                w.bits(cropping ? 1 : 0, 1)
                guard cropping else { return }
                for (value, grid) in [(left, unitX), (right, unitX), (top, unitY), (bottom, unitY)] { w.ue(value / grid) }
            }
        } catch { throw .unreadable("an SPS cannot be rewritten: \(error)") }
        return hevc ? HEVCNALUnit(header: Array(unit.prefix(2)), rbsp: out).bytes : [unit[0]] + RBSP.escaped(out)
    }

    /// `record` (`avcC` or `hvcC`) with every SPS stating this window.
    public func written(intoRecord record: [UInt8], hevc: Bool) throws(CropRefusal) -> [UInt8] {
        do {
            if hevc, let sets = HEVCParameterSets(hvcC: record) {
                return try sets.replacingSequences { try written(into: $0, hevc: true) }.hvcC
            }
            if !hevc, let sets = ParameterSets(avcC: record) {
                return try sets.replacingSequences { try written(into: $0, hevc: false) }.avcC
            }
        } catch let refusal as CropRefusal { throw refusal } catch { throw .unreadable("\(error)") }
        throw .unreadable("the stream's configuration record cannot be read")
    }

    /// A length-prefixed sample with every in-band SPS stating this window; nil when it holds
    /// none (the sample is copied as it is).
    public func written(intoSample sample: UnsafeBufferPointer<UInt8>, lengthSize: Int, hevc: Bool) throws(CropRefusal) -> [UInt8]? {
        var units: [[UInt8]] = [], found = false, covered = 0
        for unit in LengthPrefixedUnits(sample, lengthSize: lengthSize) {
            covered += lengthSize + unit.count
            if Self.isSPS(unit[0], hevc: hevc) {
                units.append(try written(into: Array(unit), hevc: hevc))
                found = true
            } else {
                units.append(Array(unit))
            }
        }
        guard found, covered == sample.count else { return nil }
        return LengthPrefixedUnits.sample(units, lengthSize: lengthSize)
    }

    static func isSPS(_ header: UInt8, hevc: Bool) -> Bool {
        hevc ? HEVCNALType.of(header) == .sequenceParameterSet : H264NALType.of(header) == .sequenceParameterSet
    }

    static func firstSPS(in units: [[UInt8]], hevc: Bool) -> [UInt8]? {
        units.first { !$0.isEmpty && isSPS($0[0], hevc: hevc) }
    }
}

/// Why a stream's picture cannot be cropped by rewriting its cropping window: a fact, in words.
public enum CropRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rectangle is larger than the picture, or outside it.
    case outside(String)
    /// An edge falls between the chroma samples.
    case offGrid(String)
    /// The parameter sets cannot be read or written.
    case unreadable(String)

    public var description: String {
        switch self {
        case .outside(let why), .offGrid(let why), .unreadable(let why): why
        }
    }
}
