import Composition
import Project
import Batch
import Foundation
import Testing
import TestSupport

@Suite struct BatchShardTests {
    /// A plan of `count` movies listed in a scrambled order (names as a glob would give them,
    /// some in subfolders, one movie twice with two outputs).
    func plan(_ count: Int, seed: UInt64 = 1) throws -> [BatchJob] {
        var g = SplitMix64(state: seed)
        var movies = (0..<count).map { i in "{\"path\": \"\(i % 3 == 0 ? "sub/" : "")m\(i).mp4\", \"output\": \"o\(i).mp4\"}" }
        movies.shuffle(using: &g)
        let recipe = try BatchRecipe.parse(Data("{\"output_dir\": \"out\", \"movies\": [\(movies.joined(separator: ","))]}".utf8), path: "r.json")
        return BatchPlan.jobs(for: recipe, base: URL(fileURLWithPath: "/nonexistent/recipes"))
    }

    /// For every N from 1 to 9 and plans of 0 to 23 jobs: the shards are disjoint, their union
    /// is the plan, their sizes differ by at most one, and the choice does not depend on the
    /// order the recipe lists the movies in (every machine agrees).
    @Test(arguments: 1...9)
    func shardsPartitionThePlanWhateverItsOrder(count: Int) throws {
        for jobs in 0...23 {
            let all = try plan(jobs)
            let other = try plan(jobs, seed: 99)
            var seen: [String: Int] = [:]
            var sizes: [Int] = []
            for k in 1...count {
                let shard = try BatchShard(index: k, count: count)
                let chosen = shard.select(all)
                sizes.append(chosen.count)
                for job in chosen { seen[job.output.lastPathComponent, default: 0] += 1 }
                #expect(chosen.map(\.output) == shard.select(other).map(\.output), "shard \(shard) of \(jobs) jobs")
            }
            #expect(seen.count == jobs && seen.values.allSatisfy { $0 == 1 }, "\(count) shards of \(jobs) jobs: \(seen)")
            #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
        }
    }

    @Test func shardsTakeEveryNthJobOfThePlanSortedByPath() throws {
        let all = try plan(7)
        let names = try (1...3).map { try BatchShard(index: $0, count: 3).select(all).map(\.name) }
        // Sorted by path: m1 m2 m4 m5 sub/m0 sub/m3 sub/m6.
        #expect(names == [["m1.mp4", "m5.mp4", "sub/m6.mp4"], ["m2.mp4", "sub/m0.mp4"], ["m4.mp4", "sub/m3.mp4"]])
        #expect(BatchShard.all.select(all).count == 7)
    }

    @Test(arguments: [
        ("0/3", "shard 0 of 3 does not exist: K must be from 1 to 3 (a Kubernetes JOB_COMPLETION_INDEX counts from 0: add 1)"),
        ("4/3", "shard 4 of 3 does not exist: K must be from 1 to 3 (a Kubernetes JOB_COMPLETION_INDEX counts from 0: add 1)"),
        ("1/0", "1/0 has no shards; N must be at least 1"),
        ("2", "\"2\" is not K/N; write 2/3 for the second of three shards"),
        ("a/b", "\"a/b\" is not K/N; write 2/3 for the second of three shards"),
    ])
    func badShardsSayWhatIsWrong(text: String, message: String) {
        #expect(throws: BatchError.job(message)) { try BatchShard(parsing: text) }
    }

    /// A recipe may come from someone else: an `output` is a file name, never a path.
    @Test(arguments: [
        ("../../evil.mp4", "contains a path separator"), ("..", "contains \"..\""), ("a..mp4", "contains \"..\""),
        ("sub/a.mp4", "contains a path separator"), ("/etc/passwd", "contains a path separator"), ("", "is empty"),
    ])
    func outputsThatAreNotFileNamesAreRefused(output: String, why: String) {
        let json = "{\"movies\": [{\"path\": \"a.mp4\", \"output\": \"\(output)\"}]}"
        #expect(throws: ProjectError.invalidRecipe(path: "r.json", reason: "at .movies[0].output: the output of \"a.mp4\", \"\(output)\", \(why); an output is a file name in output_dir")) {
            try BatchRecipe.parse(Data(json.utf8), path: "r.json")
        }
    }

    /// An output (or its record) that is a symbolic link leading outside `output_dir` makes the
    /// job fail, naming the link; a link that stays inside is fine.
    @Test func symbolicLinksOutOfTheOutputFolderAreRefused() throws {
        let folder = try TemporaryFolder("shard-links")
        let out = folder.file("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("inner"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("away.mp4").path, withDestinationPath: "../away.mp4")
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent(".marked.mp4.slowpoke-batch").path, withDestinationPath: "/tmp/x")
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("near.mp4").path, withDestinationPath: "inner/near.mp4")
        let json = """
            {"output_dir": "out", "movies": [{"path": "a.mp4", "output": "away.mp4"}, {"path": "b.mp4", "output": "marked.mp4"},
                                             {"path": "c.mp4", "output": "near.mp4"}, {"path": "d.mp4"}]}
            """
        let jobs = BatchPlan.jobs(for: try BatchRecipe.parse(Data(json.utf8), path: "r.json"), base: folder.url)
        #expect(jobs.map(\.problem) == [
            "away.mp4 in \(out.path) is a symbolic link to ../away.mp4, which is outside the output folder; remove the link (or give the job another \"output\")",
            ".marked.mp4.slowpoke-batch in \(out.path) is a symbolic link to /tmp/x, which is outside the output folder; remove the link (or give the job another \"output\")",
            nil, nil,
        ])
    }
}
