// The clocks return typed instants (Clock.swift), and waits take durations:
// whoever imports BlockerSystem speaks them without a second import.
@_exported import BlockerTime
@_exported import BlockerText
