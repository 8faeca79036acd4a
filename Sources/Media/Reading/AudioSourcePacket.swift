/// An audio packet as read from the file (for smart audio's `AudioSplicePlan`), in samples of
/// the stream (sample 0 is presentation time 0). Sixteen bytes: an 8-hour recording lists
/// 450,000 of them for the whole export.
package struct AudioSourcePacket: Equatable {
    package var start: Int64
    private var samples: Int32
    /// Damaged, or out of step with its neighbours: never copied.
    package var unusable = false

    /// Its length in samples.
    package var count: Int64 {
        get { Int64(samples) }
        set { samples = Int32(clamping: newValue) }
    }

    package init(start: Int64, count: Int64, unusable: Bool = false) {
        self.start = start
        samples = Int32(clamping: count)
        self.unusable = unusable
    }
}
