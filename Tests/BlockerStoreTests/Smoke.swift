import Testing
@testable import BlockerStore
