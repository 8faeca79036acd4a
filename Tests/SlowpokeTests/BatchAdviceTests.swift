import Foundation
import TestSupport
import Testing

/// A batch's advice is in its recipe's keys, never in flags a recipe has no key for (issue 53,
/// item 3): the libraries state the facts and a ``Remedy``; `RecipeAdvice` words it.
@Suite struct BatchAdviceTests {
    /// MPEG-4 Part 2 with a GOP of 25: passthrough can neither play it backwards (not intra-only,
    /// and not H.264 or HEVC, which it could re-encode) nor make black frames for a gap.
    @Test func aRefusalAndAWarningNameTheRecipesFpsKey() throws {
        let folder = try TemporaryFolder("batch-advice")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "2",
                                                   "-c:v", "mpeg4", "-g", "25", folder.file("m.mp4").path])
        #expect(made.status == 0, "\(made.stderr)")
        let recipe = """
            {"movies": [{"path": "m.mp4", "output": "back.mp4", "edits": [{"reverse": {"range": "0.5-1.5"}}]},
                        {"path": "m.mp4", "output": "gap.mp4", "edits": [{"insert_gap": {"at": "1", "duration": "0.5"}}]}]}
            """
        try Data(recipe.utf8).write(to: folder.file("r.json"))
        let result = try slowpoke("batch", "r.json", "--progress", "none", in: folder)
        let said = result.stdout + result.stderr
        #expect(result.status == 1, "\(said)")
        // The refusal: the facts, then the recipe's key.
        #expect(said.contains("backwards, and passthrough plays video backwards only by copying intra-only frames"), "\(said)")
        #expect(said.contains("the video of m.mp4 is mpeg4 (set \"fps\" in \"export\")"), "\(said)")
        // The warning of the job that is done: the same key, and what it gives.
        #expect(said.contains("so the frame before each gap stays on screen (set \"fps\" in \"export\" for black)"), "\(said)")
        #expect(!said.contains("--fps") && !said.contains("--keyframe-cuts"), "\(said)")
        #expect(FileManager.default.fileExists(atPath: folder.file("gap.mp4").path))
        #expect(!FileManager.default.fileExists(atPath: folder.file("back.mp4").path))
    }

    /// The same refusal from `export` names the flag.
    @Test func theCommandLineNamesTheFlag() throws {
        let folder = try TemporaryFolder("export-advice")
        let made = try TestSupport.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "2",
                                                   "-c:v", "mpeg4", "-g", "25", folder.file("m.mp4").path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try slowpoke("reverse", "m.mp4", "--range", "0.5-1.5", in: folder).status == 0)
        let result = try slowpoke("export", "m.slowpoke", "-o", "back.mp4", "--progress", "none", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("the video of m.mp4 is mpeg4 (export with --fps)\n"), "\(result.stderr)")
    }
}
