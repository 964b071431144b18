// Durations and instants are part of the domain's vocabulary: whoever
// imports BlockerCore speaks them without a second import.
@_exported import BlockerTime
