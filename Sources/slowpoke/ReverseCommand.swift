import ArgumentParser
import Composition
import Project

struct ReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Play a range of the timeline backwards, picture and sound.",
        discussion: """
            The range (timeline time) plays from its last frame to its first, its sound \
            reversed with it; the timeline keeps its length and every rate. It is one edit: \
            one line in `history`, one `undo`; reversing the same range again plays it \
            forwards. Scale or ramp the range afterwards to play it backwards faster or \
            slower (`info` shows the rate as negative: -0.5x is backwards at half speed).

            `export --fps` decodes the range one group of pictures at a time from its end, \
            so memory stays small however long it is. Passthrough copies the frames of \
            all-intra video (ProRes, MJPEG, DNxHD, FFV1, PNG) in reverse order, and \
            re-encodes the range of long-GOP H.264 to match the stream; other codecs \
            need `--fps`. OpenTimelineIO writes a LinearTimeWarp with a negative scalar.

            Examples:
              slowpoke reverse --range 2-4              # 2 s played backwards
              slowpoke reverse --range 2-4 && slowpoke scale --range 2-4 --rate 0.5
              slowpoke reverse --range 8-end            # end on a rewind
            """)

    @OptionGroup var options: DocumentOptions

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("The range to play backwards, START-END (timeline time). Several, as one edit, each backwards on its own: --range 2-4 --range 6-7, or 2-4,6-7.", valueName: "range"), transform: RangeListArgument.init(parsing:))
    var range: [RangeListArgument]

    func run() throws {
        try applyEdit(options) { (timeline: Composition) throws(CompositionError) -> Edit in
            try rangeEdits(self.range.ranges, on: timeline) { (range: TimeRange) throws(CompositionError) -> Edit in .reverse(range: range) }
        }
    }
}
