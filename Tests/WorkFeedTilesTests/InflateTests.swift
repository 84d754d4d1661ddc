import Dispatch
import Testing
@testable import WorkFeedTiles

/// The gzip and zlib layer of tiles and PMTiles directories.
@Suite struct InflateTests {
    /// A real gzip member: a tile's stored bytes in the Liechtenstein PMTiles.
    static func storedTile() throws -> (gzip: [UInt8], plain: [UInt8]) {
        let source = try PMTilesSource(path: TestData.liechtensteinPMTiles)
        let coordinate = TileCoordinate(z: 14, x: 8625, y: 5755)
        let (offset, length) = try #require(try source.storedRange(of: coordinate))
        let file = try TestData.bytes(TestData.liechtensteinPMTiles)
        let gzip = Array(file[Int(offset)..<(Int(offset) + length)])
        return (gzip, try #require(try source.tileData(at: coordinate)))
    }

    @Test func inflatesGzip() throws {
        let (gzip, plain) = try Self.storedTile()
        #expect(Inflate.isCompressed(gzip))
        #expect(try Inflate.decompress(gzip, limit: 1 << 20) == plain)
        #expect(!Inflate.isCompressed(plain))
    }

    @Test func inflatesZlib() throws {
        // A zlib stream of one stored deflate block, with its Adler-32, made by hand.
        let text = Array("MBTiles may hold zlib-wrapped tiles".utf8)
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in text {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        let length = UInt16(text.count)
        var stream: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        stream += text
        stream += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
        #expect(Inflate.isCompressed(stream))
        #expect(try Inflate.decompress(stream, limit: 1_000) == text)
        // A wrong checksum is caught.
        stream[stream.count - 1] ^= 1
        let error = #expect(throws: Inflate.Failure.self) { try Inflate.decompress(stream, limit: 1_000) }
        #expect(error?.message.contains("corrupt") == true, "\(String(describing: error))")
    }

    @Test func refusesTruncatedCorruptAndTooLargeStreams() throws {
        let (gzip, plain) = try Self.storedTile()
        let truncated = #expect(throws: Inflate.Failure.self) { try Inflate.decompress(Array(gzip.prefix(gzip.count / 2)), limit: 1 << 20) }
        #expect(truncated?.message.contains("truncated") == true)
        // The gzip trailer's CRC-32 catches a change that still inflates.
        var wrongCRC = gzip
        wrongCRC[gzip.count - 6] ^= 0xFF
        let crc = #expect(throws: Inflate.Failure.self) { try Inflate.decompress(wrongCRC, limit: 1 << 20) }
        #expect(crc?.message.contains("corrupt") == true)
        let large = #expect(throws: Inflate.Failure.self) { try Inflate.decompress(gzip, limit: plain.count - 1) }
        #expect(large?.message.contains("more than \(plain.count - 1) bytes") == true)
        #expect(try Inflate.decompress(gzip, limit: plain.count) == plain)
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([], limit: 100) }
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([0x1F, 0x8B], limit: 100) }
    }
}

/// Both readers from many threads at once: the same bytes as one thread reads.
@Suite struct ConcurrentReadingTests {
    @Test(arguments: [TestData.liechtensteinMBTiles, TestData.liechtensteinPMTiles])
    func readersAreSafeFromManyThreads(path: String) throws {
        let source = try Tileset.open(path: path)
        let coordinates = try MBTilesSource(path: TestData.liechtensteinMBTiles).coordinates()
        var tiles: [[UInt8]] = []
        for coordinate in coordinates { tiles.append(try #require(try source.tileData(at: coordinate))) }
        let expected = tiles
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for (index, coordinate) in coordinates.enumerated().shuffled() where index % 2 == thread % 2 {
                #expect((try? source.tileData(at: coordinate)) == expected[index], "\(coordinate)")
            }
        }
    }
}
