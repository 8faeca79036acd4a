/// How much time `--frames interpolate` may spend on each pair of source pictures' motion.
public enum InterpolationQuality: String, CaseIterable, Sendable {
    /// Optical flow on the picture scaled down to at most 320 pixels wide: the default, several
    /// times faster than ffmpeg's minterpolate.
    case fast
    /// Optical flow at full resolution: about three times the flow's CPU time, sharper motion on
    /// panning shots and fine texture (bench/results.md has the figures).
    case high

    /// The FlowInterpolation library's code for it (SP_FLOW_QUALITY_*).
    var code: Int32 {
        switch self {
        case .fast: 0
        case .high: 1
        }
    }
}
