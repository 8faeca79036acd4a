internal import CFFmpeg

/// An owned copy of an `AVDictionary` (a stream's language, handler name …), freed on deinit.
package final class MetadataDictionary {
    package private(set) var pointer: OpaquePointer?

    /// A copy of `source`'s entries.
    package init(copying source: OpaquePointer?, display: String) throws(MediaError) {
        let copied = av_dict_copy(&pointer, source, 0)
        guard copied >= 0 else { throw .av(path: display, AVFailure(code: copied, operation: "copying metadata")) }
    }

    deinit { av_dict_free(&pointer) }
}
