@testable import WorkFeedImport
import WorkFeedModel

/// Reads a whole document and writes each event as a line, to compare readers or check events.
enum XMLEventLog {
    static func events(_ bytes: [UInt8], options: XMLPullReader.Options = .init()) throws(ImportError) -> [String] {
        var reader = XMLPullReader(bytes: bytes, file: "test.xml", options: options)
        return try events(&reader)
    }

    static func events(_ reader: inout XMLPullReader) throws(ImportError) -> [String] {
        var log: [String] = []
        while true {
            let event = try reader.next()
            switch event {
            case .startElement:
                let attributes = reader.attributes.map { attribute in
                    "\(attribute.name)=\(String(decoding: reader.attributeBytes[attribute.value], as: UTF8.self))"
                }
                log.append("\(reader.eventLine) start \(reader.name) \(attributes.joined(separator: " "))")
            case .endElement:
                log.append("\(reader.eventLine) end \(reader.name)")
            case .text:
                log.append("\(reader.eventLine) text \(reader.textString)")
            case .comment:
                log.append("\(reader.eventLine) comment \(reader.textString)")
            case .processingInstruction:
                log.append("\(reader.eventLine) pi \(reader.name.local) \(reader.textString)")
            case .endDocument:
                log.append("end")
                return log
            }
        }
    }
}
