import Composition
import Project
import Batch
import Foundation
import Testing
import TestSupport

@Suite struct BatchRecipeTests {
    @Test(arguments: [
        ("25%-50%", "10", "2.5-5"), ("0%-100%", "10", "0-10"), ("90%-end", "10", "9-10"), ("12.5%-1/3", "2", "0.25-1/3"),
        ("3.2-5.0", "10", "3.2-5"), ("1:00-end", "90", "60-90"), ("1/3-50%", "1", "1/3-0.5"), ("33.3%-end", "30000/1001", "9990/1001-30000/1001"),
    ])
    func rangesAreSecondsTimecodesOrPercentagesOfTheTimeline(text: String, timeline: String, expected: String) throws {
        #expect(try BatchRecipe.range(text, timelineEnd: s(timeline)).exactText == expected)
    }

    @Test(arguments: [
        ("50%-25%", "range 50%-25% ends before it starts"),
        ("50%-50%", "range 50%-50% is empty; it starts and ends at 5 s"),
        ("50%-150%", "150% is not between 0% and 100% of the timeline"),
        ("x%-50%", "\"x%\" is not a percentage; write 25% or 12.5%"),
        ("5", "\"5\" is not a range; write START-END, for example 3.2-5.0, 25%-50%, 1:00-end or end-5s-end"),
        ("5-11", "range 5-11 goes beyond the end of the timeline at 10 s"),
    ])
    func badRangesSayWhatIsWrong(text: String, message: String) {
        #expect(throws: Error.self) { try BatchRecipe.range(text, timelineEnd: .seconds(10)) }
        do { _ = try BatchRecipe.range(text, timelineEnd: .seconds(10)) } catch { #expect(error.description == message) }
    }

    @Test func aRecipeReadsMoviesAsPathsOrObjectsAndEditsInOrder() throws {
        let json = """
            {"output_dir": "out", "export": {"algorithm": "timeDomain", "fps": "30000/1001"},
             "edits": [{"scale": {"range": "25%-50%", "rate": 0.25}}, {"insert_gap": {"at": 1, "duration": "0.5"}}],
             "movies": ["a.mp4", {"path": "b.mov", "edits": [{"remove": {"range": "90%-end"}}], "output": "b.mkv",
                                  "export": {"algorithm": "varispeed", "container": "mkv"}}]}
            """
        let recipe = try BatchRecipe.parse(Data(json.utf8), path: "r.json")
        #expect(recipe.outputDirectory == "out")
        #expect(recipe.movies.map(\.path) == ["a.mp4", "b.mov"])
        #expect(recipe.movies[0].edits == nil && recipe.movies[1].output == "b.mkv")
        let merged = recipe.export.overridden(by: recipe.movies[1].export)
        #expect(merged.algorithm == "varispeed" && merged.container == "mkv" && merged.fps == r("30000/1001"))
        // The recipe's edits, applied in order to a 10 s movie: 2.5-5 s at 1/4, then a gap at 1 s.
        var composition = try Composition(asset: movie())
        for spec in recipe.edits { try spec.resolved(timelineEnd: composition.duration).apply(to: &composition) }
        #expect(describe(composition.tracks[0]) == ["0-1 <- 0-1 @1", "1-1.5 <- gap", "1.5-3 <- 1-2.5 @1", "3-13 <- 2.5-5 @1/4", "13-18 <- 5-10 @1"])
        // A reverse, as `slowpoke reverse` makes it.
        let reverse = try BatchRecipe.parse(Data(#"{"movies": ["a.mp4"], "edits": [{"reverse": {"range": "20%-40%"}}]}"#.utf8), path: "r.json")
        var reversed = try Composition(asset: movie())
        for spec in reverse.edits { try spec.resolved(timelineEnd: reversed.duration).apply(to: &reversed) }
        #expect(reversed.tracks[0].segments.map(\.isReversed) == [false, true, false])
        #expect(reversed.tracks[0].segments[1].source == range("2", "4"))
    }

    @Test func recipeErrorsSayWhere() {
        let cases = [
            ("{\"movies\": [{\"edits\": []}]}", "r.json: not a valid recipe: at .movies[0]: \"path\" is missing"),
            ("{\"movies\": [\"a.mp4\"], \"edits\": [{\"spin\": {}}]}", "r.json: not a valid recipe: at .edits[0]: an edit has no key \"spin\"; its keys are scale, remove, insert_gap, reverse"),
            ("{\"movies\": [\"a.mp4\"], \"edits\": [{\"scale\": {\"range\": \"1-2\", \"rate\": \"fast\"}}]}", "r.json: not a valid recipe: at .edits[0].scale.rate: \"fast\" is not a number; write 0.25, 1/4 or 30000/1001"),
        ]
        for (json, message) in cases {
            do {
                _ = try BatchRecipe.parse(Data(json.utf8), path: "r.json")
                Issue.record("parsed \(json)")
            } catch {
                #expect(error.description == message)
            }
        }
    }
}
