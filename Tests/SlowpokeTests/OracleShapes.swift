import Foundation

/// The camera and broadcast shapes of the oracle's corpus (issue 51, item 7), and two more of
/// issue 50's list made sure of (CAVLC with slices and PCM; HEVC 10-bit open GOPs with Opus):
/// small, so that each is made in a second or two.
extension OracleSource {
    enum Kind: String, Sendable, CaseIterable {
        /// Drawn at random from the seed (shapes 0-23).
        case drawn
        /// HDR10: HEVC Main 10, PQ and BT.2020, mastering display and content light level, 120 fps.
        case hdr10
        /// A camera's .mov: the global `timecode` key (and FFmpeg's tmcd track) at 01:00:00:00, PCM.
        case timecode
        /// Android slow motion as recorded: 240 fps, `com.android.capture.fps` 240.
        case android240
        /// Android slow motion stored for 30 fps playback, `com.android.capture.fps` 240.
        case android30for240
        /// An MPEG-TS with two programs: A (H.264, MP2 deu and eng, the beeps), B (another
        /// picture, AC-3 fra, a steady 300 Hz tone).
        case twoPrograms = "2programs"
        /// x264 `intra-refresh`: one IDR, then recovery points.
        case intraRefresh = "intrarefresh"
        /// H.264 CAVLC, 4 slices a picture, open GOPs, a B-pyramid, PCM in mkv.
        case cavlcSlices = "cavlcslices"
        /// HEVC Main 10, open GOPs, a B-pyramid, Opus in mkv.
        case hevcOpen = "hevcopen"
        /// HDR10+: the HDR10 shape without B-frames, each picture with an ST 2094-40 SEI of its
        /// own (written by HDR10PlusTests' script: Debian's x265 cannot). Drawn for half the
        /// seeds of the HDR10 shape (bit 48 of the seed), so no other seed's shape changes.
        case hdr10plus
    }

    /// The special shape `shape` (from ``randomShapes`` on); the HDR10 shape's seeds with
    /// `hdr10Plus` get its HDR10+ form.
    static func special(shape: Int, hdr10Plus: Bool = false) -> OracleSource {
        let kinds = Kind.allCases.filter { $0 != .drawn && $0 != .hdr10plus }
        var s = OracleSource(seed: 0)
        s.shape = shape
        s.kind = kinds[(shape - randomShapes) % kinds.count]
        s.width = 192
        s.height = 128
        switch s.kind {
        case .drawn: break
        case .hdr10, .hdr10plus:
            (s.codec, s.tenBit, s.keyint, s.bframes, s.fps, s.seconds) = (.hevc, true, 24, 2, 120, 2)
            s.codecParams = ":colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
                + ":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"
            if hdr10Plus {
                // Without B-frames: the raw stream the SEI goes into is muxed again, and a raw
                // HEVC stream states no presentation times.
                (s.kind, s.bframes) = (.hdr10plus, 0)
                s.codecParams += ":aud=1"
            }
        case .timecode:
            (s.container, s.audio, s.keyint, s.bframes, s.fps) = ("mov", "pcm", 12, 2, 25)
        case .android240:
            (s.keyint, s.fps, s.seconds, s.width, s.height) = (48, 240, 2, 160, 120)
        case .android30for240:
            (s.keyint, s.bframes, s.fps) = (15, 2, 30)
        case .twoPrograms:
            (s.container, s.audio, s.keyint, s.bframes, s.fps) = ("ts", "mp2", 12, 2, 25)
        case .intraRefresh:
            (s.keyint, s.fps) = (30, 30)
            s.codecParams = ":intra-refresh=1"
        case .cavlcSlices:
            (s.cavlc, s.slices, s.gop, s.keyint, s.bframes, s.container, s.audio, s.fps, s.seconds) = (true, true, .open, 24, 3, "mkv", "pcm", 50, 2)
            (s.width, s.height) = (240, 160)
        case .hevcOpen:
            (s.codec, s.tenBit, s.gop, s.keyint, s.bframes, s.container, s.audio) = (.hevc, true, .open, 12, 3, "mkv", "opus")
            (s.width, s.height) = (160, 120)
        }
        return s
    }

    /// The container exports write: the source's, but .mkv for a transport stream.
    var outputContainer: String { container == "ts" ? "mkv" : container }

    /// The vendor keys the Android shapes carry.
    static let androidKeys = ["com.android.capture.fps": "240.000000", "com.android.version": "13"]

    /// Inputs after the picture (0) and the beeps (1): program B's and the second language's.
    var secondProgramInputs: [String] {
        guard kind == .twoPrograms else { return [] }
        return ["-f", "lavfi", "-i", beeps, "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=\(fps):duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=f=300:r=48000:d=\(seconds)"]
    }

    /// The muxer's options of the shape (after the codecs').
    var kindArguments: [String] {
        switch kind {
        case .hdr10, .hdr10plus: ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]
        case .timecode: ["-timecode", "01:00:00:00", "-movflags", "use_metadata_tags"]
        case .android240, .android30for240:
            ["-movflags", "use_metadata_tags"] + Self.androidKeys.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
        case .twoPrograms:
            ["-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:v", "-map", "4:a", "-c:a:2", "ac3",
             "-metadata:s:a:0", "language=deu", "-metadata:s:a:1", "language=eng", "-metadata:s:a:2", "language=fra",
             "-program", "title=A:st=0:st=1:st=2", "-program", "title=B:st=3:st=4"]
        default: []
        }
    }
}
