import Testing
@testable import BlockerConfig
