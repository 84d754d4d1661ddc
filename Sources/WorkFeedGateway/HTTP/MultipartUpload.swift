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
/// part. The body is read whole, up to the upload limit, before it is parsed (the limit bounds the
/// whole multipart body, headers and boundaries included): nothing is buffered beyond it.
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

    /// The one file in a multipart `body`.
    /// - Throws: ``Problem`` (400) for a body that is not well-formed multipart, that ends before
    ///   its closing boundary, or that holds no file part or several.
    static func file(in body: ByteBuffer, boundary: String) throws(Problem) -> MultipartUpload {
        var parts: [Part] = []
        var current = Part()
        // The last thing the parser reported was the end of a part: the body may end there.
        var atPartEnd = false
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in
            current.headers.append((name, value))
            atPartEnd = false
        }
        parser.onBody = { buffer in
            current.bytes += buffer.readableBytesView
            atPartEnd = false
        }
        parser.onPartComplete = {
            parts.append(current)
            current = Part()
            atPartEnd = true
        }
        do {
            try parser.execute(body)
        } catch {
            throw Problem.badRequest("bad-request", "the multipart body is not well formed (a part's headers cannot be read): \(sendOneFile)")
        }
        guard atPartEnd else {
            throw Problem.badRequest(
                "not-one-file",
                parts.isEmpty && current.headers.isEmpty
                    ? "the multipart body has no part with the boundary its Content-Type names: \(sendOneFile)"
                    : "the multipart body ends before its closing boundary: \(sendOneFile)")
        }
        let files = parts.filter { $0.filename != nil }
        switch (files.count, parts.count) {
        case (1, _): return MultipartUpload(bytes: files[0].bytes, filename: files[0].filename)
        case (0, 1): return MultipartUpload(bytes: parts[0].bytes, filename: nil)
        case (0, _):
            throw Problem.badRequest("not-one-file", "the multipart body has no file part (no part with a filename): \(sendOneFile)")
        default:
            throw Problem.badRequest(
                "not-one-file", "the multipart body has \(files.count) file parts, one workout file is taken at a time: \(sendOneFile)")
        }
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
