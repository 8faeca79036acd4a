import Export
import Media

/// How the process hands freed memory back, set once at start.
///
/// glibc raises its mmap threshold each time a large block is freed, so the next large ones
/// (each open movie's index of every sample, 12.5 MB for a 2-hour mp4; a render's buffers) come
/// from the heap, and freeing them leaves them mapped: a 2-hour export peaked at 163-182 MB, of
/// which 50 MB was memory already freed. A fixed trim threshold (which also fixes the mmap
/// threshold at its default) returns it: the same export peaks at 124 MB, in the same time
/// (measured with MALLOC_TRIM_THRESHOLD_, which this sets from inside).
enum MemoryPolicy {
    static func apply() {
        MallocOption.set(MallocOption.trimThreshold, 1 << 20)
    }
}
