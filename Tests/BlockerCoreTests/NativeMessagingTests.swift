import Testing
@testable import BlockerCore

/// Native messaging's framing (issue 24): the length prefix, the 1 MiB
/// bound, garbage, and a pipe that closes mid-message.
@Suite struct NativeMessagingTests {
    let hello = Array(#"{"site":"youtube.com"}"#.utf8)

    @Test func aFrameIsItsLittleEndianLengthThenTheJSON() throws {
        let frame = try #require(NativeMessaging.frame(hello))
        #expect(Array(frame.prefix(4)) == [UInt8(hello.count), 0, 0, 0])
        #expect(Array(frame.dropFirst(4)) == hello)
        #expect(NativeMessaging.frame([UInt8](repeating: 32, count: NativeMessaging.maximumBytes))?.count == NativeMessaging.maximumBytes + 4)
        #expect(NativeMessaging.frame([UInt8](repeating: 32, count: NativeMessaging.maximumBytes + 1)) == nil)
    }

    @Test func messagesComeOutWhateverPiecesTheBytesArriveIn() throws {
        let stream = NativeMessaging.frame(hello)! + NativeMessaging.frame([])! + NativeMessaging.frame(Array("{}".utf8))!
        for piece in 1...stream.count {
            var reader = NativeMessageReader()
            var messages: [[UInt8]] = []
            var index = 0
            while index < stream.count {
                messages += try reader.feed(Array(stream[index..<min(index + piece, stream.count)]))
                index += piece
            }
            #expect(messages == [hello, [], Array("{}".utf8)], "pieces of \(piece)")
            try reader.finish()
        }
    }

    @Test func aLengthOverTheBoundIsRefusedAtOnce() {
        var reader = NativeMessageReader()
        #expect(throws: NativeMessageError.tooLong(0x6973_227B)) { try reader.feed(Array(#"{"site"}"#.utf8)) }   // JSON without a frame
        var huge = NativeMessageReader()
        #expect(throws: NativeMessageError.tooLong(UInt32(NativeMessaging.maximumBytes + 1))) {
            try huge.feed([0x01, 0x00, 0x10, 0x00])
        }
    }

    @Test func aPipeClosedInsideAMessageSaysHowMuchArrived() throws {
        var reader = NativeMessageReader()
        let frame = NativeMessaging.frame(hello)!
        #expect(try reader.feed(Array(frame.prefix(10))).isEmpty)
        #expect(throws: NativeMessageError.closedMidMessage(have: 10, want: frame.count)) { try reader.finish() }
        var short = NativeMessageReader()
        _ = try short.feed([5, 0])
        #expect(throws: NativeMessageError.closedMidMessage(have: 2, want: 4)) { try short.finish() }
        try NativeMessageReader().finish()
    }
}
