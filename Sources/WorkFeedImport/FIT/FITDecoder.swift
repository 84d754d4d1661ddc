import WorkFeedModel

/// Decodes the records of a FIT file: definition messages, data messages and
/// compressed-timestamp messages, checking the header and file CRCs.
struct FITDecoder {
    /// Global message numbers of the FIT profile that the feed reads.
    enum Message {
        static let fileID: UInt16 = 0
        static let sport: UInt16 = 12
        static let session: UInt16 = 18
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let activity: UInt16 = 34
    }

    static let timestampField: UInt8 = 253

    let bytes: [UInt8]
    let file: String
    var definitions = [FITMessageDefinition?](repeating: nil, count: 16)
    /// The last full timestamp, the base of compressed-timestamp headers.
    var lastTimestamp: UInt32?
    var builder = FITWorkoutBuilder()

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// Decodes the whole file; FIT files chained one after the other make one workout.
    /// - Throws: ``ImportError`` naming the byte offset of the first problem.
    mutating func decode() throws(ImportError) -> ImportedWorkout {
        var offset = 0
        repeat {
            let header = try FITFileHeader(bytes, at: offset, file: file)
            let dataStart = offset + header.size
            let dataEnd = dataStart + header.dataSize
            let stored = UInt16(bytes[dataEnd]) | UInt16(bytes[dataEnd + 1]) << 8
            let computed = FITCRC.checksum(bytes[offset..<dataEnd])
            guard stored == computed else {
                throw failure(
                    at: dataEnd,
                    "file CRC is \(FITFileHeader.hex(stored)) but the data give \(FITFileHeader.hex(computed)) (corrupt or cut short)")
            }
            definitions = [FITMessageDefinition?](repeating: nil, count: 16)
            try decodeRecords(dataStart..<dataEnd)
            offset = dataEnd + 2
            if offset < bytes.count && !FITFileHeader.hasSignature(bytes[offset...]) {
                throw failure(at: offset, "\(bytes.count - offset) bytes after the end of the FIT data that are not another FIT file")
            }
        } while offset < bytes.count
        return builder.workout(origin: file)
    }

    func failure(at offset: Int, _ message: String) -> ImportError {
        ImportError(file: file, field: "offset \(offset)", message: message)
    }

    private mutating func decodeRecords(_ range: Range<Int>) throws(ImportError) {
        let bytes = self.bytes
        try bytes.withUnsafeBufferPointer { (pointer) throws(ImportError) in
            var position = range.lowerBound
            while position < range.upperBound {
                position = try decodeRecord(pointer, at: position, end: range.upperBound)
            }
        }
    }

    /// Decodes the record at `start`; returns where the next one starts.
    private mutating func decodeRecord(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, end: Int) throws(ImportError) -> Int {
        let header = bytes[start]
        var position = start + 1
        if header & 0x80 != 0 {
            // Compressed timestamp: a 5-bit offset from the last full timestamp, rolling over.
            let local = Int((header >> 5) & 0x03)
            guard let definition = definitions[local] else {
                throw failure(at: start, "compressed-timestamp message of local type \(local) has no definition before it")
            }
            var timestamp: UInt32?
            if let last = lastTimestamp {
                let offset = UInt32(header & 0x1F)
                var value = (last & ~0x1F) | offset
                if offset < last & 0x1F { value &+= 0x20 }
                timestamp = value
                lastTimestamp = value
            }
            guard position + definition.contentSize <= end else {
                throw failure(at: start, "the data end inside a message of \(definition.contentSize) bytes")
            }
            handle(definition, bytes, at: position, timestamp: timestamp)
            return position + definition.contentSize
        }
        let local = Int(header & 0x0F)
        if header & 0x40 != 0 {
            definitions[local] = try readDefinition(bytes, at: &position, end: end, developerFields: header & 0x20 != 0)
            return position
        }
        guard let definition = definitions[local] else {
            throw failure(at: start, "data message of local type \(local) has no definition before it")
        }
        guard position + definition.contentSize <= end else {
            throw failure(at: start, "the data end inside a message of \(definition.contentSize) bytes")
        }
        handle(definition, bytes, at: position, timestamp: nil)
        return position + definition.contentSize
    }

    /// Reads a definition message's content (after its record header).
    private func readDefinition(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int, end: Int, developerFields: Bool
    ) throws(ImportError) -> FITMessageDefinition {
        let start = position - 1
        guard position + 5 <= end else { throw failure(at: start, "the data end inside a definition message") }
        let architecture = bytes[position + 1]
        guard architecture <= 1 else {
            throw failure(at: position + 1, "definition message with architecture \(architecture) (only 0 and 1 exist)")
        }
        let bigEndian = architecture == 1
        let first = UInt16(bytes[position + 2])
        let second = UInt16(bytes[position + 3])
        let globalNumber = bigEndian ? first << 8 | second : second << 8 | first
        let count = Int(bytes[position + 4])
        position += 5
        guard position + count * 3 <= end else { throw failure(at: start, "the data end inside a definition message") }
        var fields: [FITMessageDefinition.Field] = []
        fields.reserveCapacity(count)
        var size = 0
        for index in 0..<count {
            let base = position + index * 3
            let fieldSize = Int(bytes[base + 1])
            fields.append(.init(number: bytes[base], offset: size, size: fieldSize, baseType: FITBaseType(bytes[base + 2])))
            size += fieldSize
        }
        position += count * 3
        if developerFields {
            // Developer fields are app-specific; only their sizes matter, to skip them.
            guard position < end else { throw failure(at: start, "the data end inside a definition message") }
            let developerCount = Int(bytes[position])
            position += 1
            guard position + developerCount * 3 <= end else { throw failure(at: start, "the data end inside a definition message") }
            for index in 0..<developerCount { size += Int(bytes[position + index * 3 + 1]) }
            position += developerCount * 3
        }
        return FITMessageDefinition(globalNumber: globalNumber, bigEndian: bigEndian, fields: fields, contentSize: size)
    }
}
