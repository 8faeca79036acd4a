public import Foundation

/// One of N disjoint parts of a batch, so that N machines (a Kubernetes Indexed Job, a Slurm
/// job array, GNU parallel over SSH) can share a recipe's work with no scheduler of slowpoke's.
///
/// Every machine expands the same recipe and sorts the jobs the same way, by the movie as the
/// recipe names it (after pattern expansion, relative to the recipe's folder), then by output
/// name: nothing about the machine (its mount point, its order of listing files) enters. Shard
/// K of N takes the jobs at sorted positions K-1, K-1+N, K-1+2N, …, so the shards are
/// disjoint, their union is the whole recipe, and no two differ in size by more than one job.
///
/// ```
/// sorted jobs   a  b  c  d  e  f  g
/// shard 1/3     a        d        g
/// shard 2/3        b        e
/// shard 3/3           c        f
/// ```
public struct BatchShard: Sendable, Hashable, CustomStringConvertible {
    /// From 1 to `count`.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(BatchError) {
        guard count >= 1 else { throw .job("\(index)/\(count) has no shards; N must be at least 1") }
        guard (1...count).contains(index) else {
            throw .job("shard \(index) of \(count) does not exist: K must be from 1 to \(count) (a Kubernetes JOB_COMPLETION_INDEX counts from 0: add 1)")
        }
        self.index = index
        self.count = count
    }

    /// `K/N`, as `--shard` takes it: `2/3`.
    public init(parsing text: String) throws(BatchError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let n = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw .job("\"\(text)\" is not K/N; write 2/3 for the second of three shards")
        }
        try self.init(index: k, count: n)
    }

    /// The whole plan, as one shard.
    public static let all = try! BatchShard(index: 1, count: 1)

    public var description: String { "\(index)/\(count)" }

    /// This shard's jobs, in sorted order, each keeping its number in the whole plan.
    public func select(_ jobs: [BatchJob]) -> [BatchJob] {
        Self.sorted(jobs).enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    /// Jobs in the order every machine agrees on: by name, then output name, then plan number.
    public static func sorted(_ jobs: [BatchJob]) -> [BatchJob] {
        jobs.sorted { a, b in
            if a.name != b.name { return a.name.utf8.lexicographicallyPrecedes(b.name.utf8) }
            let (x, y) = (a.output.lastPathComponent, b.output.lastPathComponent)
            if x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
            return a.number < b.number
        }
    }
}
