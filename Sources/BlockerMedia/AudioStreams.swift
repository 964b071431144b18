import BlockerCore
import BlockerSystem

/// PulseAudio (or PipeWire's pulse server) sink inputs, through `pactl`
/// run as a subprocess. Each run is bounded (`timeoutMs`): a hung sound
/// server costs a shield change at most that long, never the loop for good.
/// Why pactl gave no answer, in words for the journal.
public struct AudioError: Error, CustomStringConvertible {
    public let description: String
}

public enum AudioStreams {
    public static let timeoutMs: Milliseconds = 500

    public static func list() -> Result<[AudioStream], AudioError> {
        switch pactl(["list", "sink-inputs"]) {
        case let .success(text): .success(CoverMedia.parseSinkInputs(text))
        case let .failure(why): .failure(why)
        }
    }

    /// Mutes or unmutes stream `index`; the error, if any.
    public static func setMute(_ index: UInt32, _ muted: Bool) -> String? {
        if case let .failure(why) = pactl(["set-sink-input-mute", "\(index)", muted ? "1" : "0"]) { return "\(why)" }
        return nil
    }

    /// In the C locale, so the output parses whatever the user's language.
    private static func pactl(_ arguments: [String]) -> Result<String, AudioError> {
        switch Subprocess.run(["env", "LC_ALL=C", "pactl"] + arguments, timeoutMs: timeoutMs) {
        case let .success(output) where output.status == 0:
            return .success(String(decoding: output.stdout, as: UTF8.self))
        case let .success(output):
            return .failure(AudioError(description: "pactl \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderrLine ?? "")"))
        case let .failure(failure):
            return .failure(AudioError(description: "pactl \(arguments.joined(separator: " ")): \(failure)"))
        }
    }
}
