import Foundation
import MultipartKit
import NIOCore

/// The one file of a `multipart/form-data` upload (what `curl -F`, a browser's `FormData` and most
/// phone HTTP clients send), parsed with vapor/multipart-kit's `MultipartParser`.
///
/// The file is the one part whose `Content-Disposition` names a `filename`, whatever its field
/// name; other fields (a form's text fields) are passed over. A body of a single part without a
/// `filename` is taken as the file too (`curl -F 'file=<run.gpx'`). No file part, or more than
/// one, is refused with a ``Problem`` that says to send the file as the body or as one multipart
/// part. The body is read up to the upload limit (which bounds the whole multipart body, headers
/// and boundaries included), then parsed chunk by chunk as it arrived (``MultipartFileReader``),
/// off the cooperative pool: only the file part's bytes are kept, never the whole body joined.
struct MultipartUpload: Equatable {
    /// The file's bytes.
    var bytes: [UInt8]
    /// The part's `filename`, when it has one.
    var filename: String?

    /// What a client is told when no single file is found.
    static let sendOneFile = "send the file as the body or as one multipart part"

    /// The boundary of a `multipart/…` content type, `nil` for any other content type.
    /// - Throws: ``Problem`` (400) for a multipart content type without a usable boundary
    ///   (missing, empty, or longer than RFC 2046's 70 characters).
    static func boundary(ofContentType contentType: String?) throws(Problem) -> String? {
        guard let contentType else { return nil }
        let (type, parameters) = HeaderParameters.parse(contentType)
        guard type.lowercased().hasPrefix("multipart/") else { return nil }
        guard let boundary = parameters["boundary"], (1...70).contains(boundary.utf8.count) else {
            throw Problem.badRequest(
                "bad-request", "the Content-Type \(type.prefix(40)) needs a boundary of 1 to 70 characters: \(sendOneFile)")
        }
        return boundary
    }

    /// The one file in a multipart body that came as `chunks`; each chunk is let go once parsed.
    /// - Throws: ``Problem`` (400) for a body that is not well-formed multipart, that ends before
    ///   its closing boundary, or that holds no file part or several.
    static func file(in chunks: inout [ByteBuffer], boundary: String) throws(Problem) -> MultipartUpload {
        let reader = MultipartFileReader(boundary: boundary)
        for index in chunks.indices {
            let chunk = chunks[index]
            chunks[index] = ByteBuffer()
            try reader.feed(chunk)
        }
        return try reader.finish()
    }

    /// The one file in a multipart `body` held whole.
    static func file(in body: ByteBuffer, boundary: String) throws(Problem) -> MultipartUpload {
        var chunks = [body]
        return try file(in: &chunks, boundary: boundary)
    }
}

/// A multipart body read as it comes, chunk by chunk, keeping the bytes of at most two parts: the
/// first (the file when it is the only part, `curl -F 'file=<run.gpx'`) and the first that names a
/// `filename`; of every other part only its headers and that it was there. Not thread-safe: one
/// upload's reader on one thread.
final class MultipartFileReader {
    private let parser: MultipartParser
    private var current = Part()
    /// Whether `current` is kept, decided once its headers are all there.
    private var keeping: Bool?
    private var first: Part?
    private var file: Part?
    private var parts = 0
    private var files = 0
    /// The last thing the parser reported was the end of a part: the body may end there.
    private var atPartEnd = false

    init(boundary: String) {
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [unowned self] name, value in
            current.headers.append((name, value))
            atPartEnd = false
        }
        parser.onBody = { [unowned self] buffer in
            if decide() { current.bytes += buffer.readableBytesView }
            atPartEnd = false
        }
        parser.onPartComplete = { [unowned self] in
            let kept = decide()
            if current.filename != nil { files += 1 }
            if kept, parts == 0 { first = current }
            if kept, current.filename != nil, file == nil { file = current }
            parts += 1
            current = Part()
            keeping = nil
            atPartEnd = true
        }
    }

    /// Whether the part being read is kept: the first part, and the first with a `filename`.
    private func decide() -> Bool {
        if let keeping { return keeping }
        let kept = parts == 0 || (file == nil && current.filename != nil)
        keeping = kept
        return kept
    }

    /// Parses the next chunk of the body.
    /// - Throws: ``Problem`` (400) when a part's headers cannot be read.
    func feed(_ chunk: ByteBuffer) throws(Problem) {
        do {
            try parser.execute(chunk)
        } catch {
            throw Problem.badRequest(
                "bad-request", "the multipart body is not well formed (a part's headers cannot be read): \(MultipartUpload.sendOneFile)")
        }
    }

    /// The one file, once the whole body was fed.
    /// - Throws: ``Problem`` (400) for a body that ends before its closing boundary, or that holds
    ///   no file part or several.
    func finish() throws(Problem) -> MultipartUpload {
        let sendOneFile = MultipartUpload.sendOneFile
        guard atPartEnd else {
            throw Problem.badRequest(
                "not-one-file",
                parts == 0 && current.headers.isEmpty
                    ? "the multipart body has no part with the boundary its Content-Type names: \(sendOneFile)"
                    : "the multipart body ends before its closing boundary: \(sendOneFile)")
        }
        switch (files, parts) {
        case (1, _):
            guard let file else { break }
            return MultipartUpload(bytes: file.bytes, filename: file.filename)
        case (0, 1):
            guard let first else { break }
            return MultipartUpload(bytes: first.bytes, filename: nil)
        case (0, _):
            throw Problem.badRequest("not-one-file", "the multipart body has no file part (no part with a filename): \(sendOneFile)")
        default:
            throw Problem.badRequest(
                "not-one-file", "the multipart body has \(files) file parts, one workout file is taken at a time: \(sendOneFile)")
        }
        throw Problem.badRequest("not-one-file", "the multipart body has no file part (no part with a filename): \(sendOneFile)")
    }

    /// One part as the parser reports it.
    private struct Part {
        var headers: [(name: String, value: String)] = []
        var bytes: [UInt8] = []

        /// The `filename` of its `Content-Disposition` (`filename*` in RFC 5987's UTF-8 form first).
        var filename: String? {
            guard let disposition = headers.first(where: { $0.name.lowercased() == "content-disposition" })?.value else { return nil }
            let parameters = HeaderParameters.parse(disposition).parameters
            if let extended = parameters["filename*"], let decoded = HeaderParameters.decodeExtended(extended) { return decoded }
            return parameters["filename"]
        }
    }
}

/// The parameters of a header such as `Content-Type` or `Content-Disposition`:
/// `value; name=token; name="quoted \"string\""` (RFC 9110 section 5.6.6).
enum HeaderParameters {
    /// The value before the first `;`, and the parameters by lower-cased name (the first of a name
    /// wins). Never fails: what cannot be read is left out.
    static func parse(_ header: String) -> (value: String, parameters: [String: String]) {
        let characters = Array(header)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
        var value = ""
        while index < characters.count, characters[index] != ";" {
            value.append(characters[index])
            index += 1
        }
        var parameters: [String: String] = [:]
        while index < characters.count {
            index += 1  // the ";"
            skipSpaces()
            var name = ""
            while index < characters.count, characters[index] != "=", characters[index] != ";" {
                name.append(characters[index])
                index += 1
            }
            guard index < characters.count, characters[index] == "=" else { continue }
            index += 1
            skipSpaces()
            var parameter = ""
            if index < characters.count, characters[index] == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"" {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    parameter.append(characters[index])
                    index += 1
                }
                // The closing quote, then anything up to the next ";".
                while index < characters.count, characters[index] != ";" { index += 1 }
            } else {
                while index < characters.count, characters[index] != ";" {
                    parameter.append(characters[index])
                    index += 1
                }
                parameter = parameter.trimmingCharacters(in: .whitespaces)
            }
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if !key.isEmpty, parameters[key] == nil { parameters[key] = parameter }
        }
        return (value.trimmingCharacters(in: .whitespaces), parameters)
    }

    /// An RFC 5987 extended value, `UTF-8''run%20one.gpx`; `nil` when it is not one in UTF-8.
    static func decodeExtended(_ text: String) -> String? {
        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].lowercased() == "utf-8" else { return nil }
        return String(pieces[2]).removingPercentEncoding
    }
}
