import Testing
@testable import BlockerCore
