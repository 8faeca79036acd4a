import Foundation
import TestSupport
import Testing

/// A recipe's `stabilize` and `stabilize_borders` take what `export --stabilize[=S]
/// --stabilize-borders` takes: the shaky clip of ``StabilizeTests`` comes out of a batch as
/// steady as the export makes it, measured the same way; refusals are worded in recipe keys.
@Suite(.serialized) struct BatchStabilizeTests {
    @Test func aRecipeSteadiesTheShakyClip() throws {
        let folder = try TemporaryFolder("batch-stabilize")
        try StabilizeTests.shakyClip(in: folder)
        let recipe = """
            {"output_dir": "out", "export": {"fps": 30, "stabilize": true},
             "movies": ["clip.mp4", {"path": "clip.mp4", "output": "kept.mp4", "export": {"stabilize": 20, "stabilize_borders": "keep"}}]}
            """
        try Data(recipe.utf8).write(to: folder.file("recipe.json"))
        let run = try slowpoke("batch", "recipe.json", "--progress", "none", in: folder)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("stabilized (strength 10, zoomed to hide the edges"), "\(run.stdout)")
        #expect(run.stdout.contains("stabilized (strength 20, edges kept unzoomed"), "\(run.stdout)")
        // The analysis is kept in the output folder, once for the one movie.
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.file("out/.slowpoke-stab").path).filter { $0.hasSuffix(".trf") }
        #expect(kept.count == 1, "\(kept)")
        let input = StabilizeTests.deviation(try StabilizeTests.motion(of: folder.file("clip.mp4"), in: folder))
        var checked = 0
        for name in ["clip-slowpoke.mp4", "kept.mp4"] {
            let motion = try StabilizeTests.motion(of: folder.file("out/\(name)"), in: folder)
            #expect(motion.count == StabilizeTests.frames - 1)
            let steadied = StabilizeTests.deviation(motion)
            print(String(format: "batch stabilize %@: motion deviation %.3f px against the input's %.3f px", name, steadied, input))
            #expect(input > 3)
            #expect(steadied <= 0.25 * input, "\(name): \(steadied) px against \(input) px")
            checked += 1
        }
        #expect(checked == 2)
    }

    @Test(arguments: [
        (#"{"stabilize": true}"#, #"steadying them re-encodes them (set "fps" in "export" to steady them)"#),
        (#"{"fps": 30, "stabilize_borders": "keep"}"#, #""stabilize_borders" says how "stabilize" fills the edges; set "stabilize" too"#),
        (#"{"fps": 30, "stabilize": 0}"#, #""stabilize": a stabilization strength is a whole number of frames from 1 to 100, not 0"#),
        (#"{"fps": 30, "stabilize": 5, "stabilize_borders": "crop"}"#, #""stabilize_borders": "crop" is not one of zoom, keep"#),
    ])
    func refusalsAreWordedInRecipeKeys(export: String, message: String) throws {
        let folder = try TemporaryFolder("batch-stabilize-refused")
        try folder.copy(media: "clip240.mp4", as: "a.mp4")
        try Data("{\"export\": \(export), \"movies\": [\"a.mp4\"]}".utf8).write(to: folder.file("recipe.json"))
        let run = try slowpoke("batch", "recipe.json", "--progress", "none", in: folder)
        #expect(run.status == 1)
        #expect((run.stdout + run.stderr).contains(message), "\(run.stdout)\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a-slowpoke.mp4").path))
    }
}
