/// When a polled probe samples next.
///
/// A sample's window is charged for the time until the next sample. At a
/// fixed period, a window switched in step with the poll is always seen or
/// never (3.8 s in front charged 15 s; 10.8 s charged nothing). So each
/// interval is drawn uniformly from [P/2, 3P/2): on average the poll interval
/// P, and drawn afresh each time, so where the next sample falls does not
/// depend on where the last one did. What a sample charges is then on
/// average the time its window was in front, whatever the rhythm of the
/// switching (a random phase within a fixed grid would not do: a window
/// always in front in the late half of each interval would be charged 3/4 of
/// its time). The longest interval, 3P/2, stays under the accountant's cap
/// of 2P, so no time is lost to the cap.
public enum PollSchedule {
    /// The delay until the next sample, in microseconds.
    public static func nextDelayUs(pollInterval: Milliseconds, using random: inout some RandomNumberGenerator) -> UInt64 {
        let periodUs = UInt64(max(pollInterval, 1).ms) * 1000
        return periodUs / 2 + UInt64.random(in: 0..<periodUs, using: &random)
    }
}
