import Composition
import Export

extension Report {
    /// `info --fps`'s "Export": the planned `export --fps` export's streams, each warning it
    /// gives before any work (as `export will say:` lines, the words `export` prints), and the
    /// line `export --dry-run --fps` prints; or why it refuses.
    static func constantRate(_ plan: ConstantRatePlan) -> String {
        let heading = "\nExport (--fps \(plan.fps.shown), to \(plan.output)):\n"
        switch plan.preview {
        case .failure:
            return heading + "  export --fps refuses: \(plan.refusal ?? "")\n"
        case .success(let preview):
            return heading + streams(preview.streams)
                + preview.warnings.map { "  export will say: \(FlagAdvice.text($0))\n" }.joined()
                + (plan.wouldWrite.map { "  \($0)\n" } ?? "")
        }
    }
}
