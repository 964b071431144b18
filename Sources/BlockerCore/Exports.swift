// Durations and instants are part of the domain's vocabulary: whoever
// imports BlockerCore speaks them without a second import.
@_exported import BlockerTime
// Every text a person reads is marked with tr/trn/N_ (issue 26).
@_exported import BlockerText
