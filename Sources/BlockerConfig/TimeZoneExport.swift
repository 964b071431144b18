// The system time zone reader lives in BlockerTimeZone, so the overlay reads
// the zone without the config loader; everything that reads the config gets it too.
@_exported import BlockerTimeZone
