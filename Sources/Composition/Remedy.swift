/// What would do what was asked, as a library names it beside a refusal or a warning: another
/// option to ask for, and what it gives. A library states facts and never names a flag; each
/// front end says a remedy in its own words (the command line as a flag, a batch recipe as a
/// key), and leaves out one it has no words for.
public struct Remedy: Sendable, Hashable {
    /// The options a remedy can name, as what they do rather than how a front end spells them.
    public enum Option: Sendable, Hashable {
        /// Re-encode every frame at a constant frame rate (rather than copy the frames).
        case constantRate
        /// Copy the frames (passthrough) rather than re-encode them at a constant frame rate.
        case passthrough
        /// Cut only at keyframes, re-encoding nothing.
        case keyframeCuts
        /// Cut frame-exactly, re-encoding the frames after a cut (rather than only at keyframes).
        case frameExactCuts
        /// Make new frames by blending their neighbours rather than by following motion.
        case blendFrames
        /// Encode the video with one of these codecs (`VideoCodec`'s raw values).
        case codec([String])
        /// Write into one of these containers (file extensions, without the dot; none: another one).
        case container([String])
        /// Replace the file that is there.
        case replace
    }

    public var option: Option
    /// What it gives, a phrase said after the option ("to cut exactly", "for black", "keeps it");
    /// empty when the sentence needs none.
    public var gives: String

    public init(_ option: Option, _ gives: String = "") {
        self.option = option
        self.gives = gives
    }

    /// `gives` with the space that joins it to the option's words.
    public var givesSuffix: String { gives.isEmpty ? "" : " " + gives }
}
