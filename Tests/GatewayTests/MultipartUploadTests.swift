import Foundation
import NIOCore
import Testing
import WorkFeedConfig
@testable import WorkFeedGateway
import WorkFeedModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 25: uploads as `multipart/form-data` (what `curl -F`, `FormData` and most phone HTTP
/// clients send) carry one workout file part; a body with no file part or several is a 400 that
/// says how to send it; the 400 for an unknown format does not offer archives, which the endpoint
/// refuses (415).
@Suite(.serialized) struct MultipartUploadTests {
    let run = fixture("strava_run_2015_short_gpxtpx-hr.gpx")
    let ride = fixture("garmin-connect_ride_2020_short_ns3-hr.gpx")

    /// A multipart body as URLSession-based apps build it by hand (and as `FormData` sends it).
    static func multipart(_ parts: [(field: String, filename: String?, type: String?, bytes: Data)], boundary: String) -> Data {
        var body = Data()
        for part in parts {
            body += Data("--\(boundary)\r\n".utf8)
            var disposition = "Content-Disposition: form-data; name=\"\(part.field)\""
            if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
            body += Data((disposition + "\r\n").utf8)
            if let type = part.type { body += Data("Content-Type: \(type)\r\n".utf8) }
            body += Data("\r\n".utf8) + part.bytes + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }

    @Test func aURLSessionMultipartUploadIsAccepted() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let file = try Data(contentsOf: URL(fileURLWithPath: run))
            let boundary = "Boundary-\(UUID().uuidString)"
            // A text field before the file, as forms send them: passed over.
            let body = Self.multipart(
                [("note", nil, nil, Data("morning run".utf8)), ("workout", "morning.gpx", "application/gpx+xml", file)], boundary: boundary)
            let reply = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"), headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
                body: body)
            #expect(reply.status == 201, "\(reply.json)")
            let id = try #require(reply.uploaded["id"] as? String)
            // The very workout a raw upload of the same file gives (under its other name).
            let raw = try await system.upload(run, as: "alice")
            #expect(raw.status == 200 && raw.uploaded["id"] as? String == id, "\(raw.json)")

            // One part without a filename (curl -F 'file=<run.gpx'): that part is the file.
            let ride = try Data(contentsOf: URL(fileURLWithPath: self.ride))
            let single = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"),
                headers: ["Content-Type": "multipart/form-data; boundary=\"\(boundary)\""],
                body: Self.multipart([("file", nil, nil, ride)], boundary: boundary))
            #expect(single.status == 201, "\(single.json)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func noFilePartOrSeveralIsA400ThatSaysHowToSend() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let file = try Data(contentsOf: URL(fileURLWithPath: run))
            let boundary = "xyz123"
            let type = ["Content-Type": "multipart/form-data; boundary=\(boundary)"]
            let bodies: [(String, Data, String)] = [
                ("two files", Self.multipart([("a", "a.gpx", nil, file), ("b", "b.gpx", nil, file)], boundary: boundary), "2 file parts"),
                ("two fields", Self.multipart([("a", nil, nil, file), ("b", nil, nil, file)], boundary: boundary), "no file part"),
                ("another boundary", Self.multipart([("a", "a.gpx", nil, file)], boundary: "other"), "no part with the boundary"),
                ("cut short", Self.multipart([("a", "a.gpx", nil, file)], boundary: boundary).dropLast(40), "ends before its closing boundary"),
            ]
            for (label, body, says) in bodies {
                let reply = try await system.call("POST", "/v1/workouts", token: system.token("alice"), headers: type, body: body)
                #expect(reply.status == 400, "\(label)")
                #expect(reply.json["type"] as? String == "urn:workfeed:problem:not-one-file", "\(label)")
                let detail = reply.json["detail"] as? String ?? ""
                #expect(detail.contains(says) && detail.hasSuffix("send the file as the body or as one multipart part"), "\(label): \(detail)")
            }
            // A multipart content type without a boundary.
            let bare = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"), headers: ["Content-Type": "multipart/form-data"], body: file)
            #expect(bare.status == 400 && (bare.json["detail"] as? String ?? "").contains("as one multipart part"))
            // An empty file part.
            let empty = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"), headers: type,
                body: Self.multipart([("a", "a.gpx", nil, Data())], boundary: boundary))
            #expect(empty.status == 400 && empty.json["type"] as? String == "urn:workfeed:problem:empty-file")
            // A zip in a part is refused as a raw zip is (415).
            let zip = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"), headers: type,
                body: Self.multipart([("a", "export.zip", nil, Data([0x50, 0x4B, 0x03, 0x04, 0, 0]))], boundary: boundary))
            #expect(zip.status == 415)
            // Nothing was stored.
            #expect((try await system.get("/v1/feed", as: "alice").json["items"] as? [Any])?.isEmpty == true)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func anUnknownFormatDoesNotOfferArchives() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let reply = try await system.call(
                "POST", "/v1/workouts?filename=notes.txt", token: system.token("alice"), body: Data("just some notes".utf8))
            #expect(reply.status == 400 && reply.json["type"] as? String == "urn:workfeed:problem:unreadable-file")
            let detail = reply.json["detail"] as? String ?? ""
            #expect(detail.contains("unknown file format") && detail.contains("GPX, TCX or FIT"), "\(detail)")
            #expect(detail.contains("send the file as the body or as one multipart part"), "\(detail)")
            #expect(!detail.lowercased().contains("zip") && !detail.contains("Apple Health"), "\(detail)")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// A multipart body is bounded by the same limit as a raw one, and refused with 413 as soon as
    /// it grows past it.
    @Test func aMultipartBodyOverTheLimitIs413() async throws {
        let system = try await GatewaySystem(workers: 0) { $0.uploadMaximumBytes = 2048 }
        do {
            let file = try Data(contentsOf: URL(fileURLWithPath: ride))
            let boundary = "limit-test"
            let reply = try await system.call(
                "POST", "/v1/workouts", token: system.token("alice"), headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
                body: Self.multipart([("a", "ride.gpx", nil, file)], boundary: boundary))
            #expect(reply.status == 413 && reply.json["type"] as? String == "urn:workfeed:problem:too-large")
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// `curl -F`, the README's example, against the real gateway.
    @Test func curlDashFUploads() async throws {
        let system = try await GatewaySystem(workers: 0)
        do {
            let token = system.token("alice")
            let base = system.base
            let run = run
            let output = try await offPool { () throws -> String in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                process.arguments = [
                    "-sS", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "-F", "file=@\(run)", "\(base)/v1/workouts",
                ]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return String(decoding: data, as: UTF8.self)
            }
            let lines = output.split(separator: "\n")
            #expect(lines.last == "201", "\(output)")
            let reply = try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any]
            let uploaded = try #require((reply?["workouts"] as? [[String: Any]])?.first)
            #expect(uploaded["result"] as? String == "imported")
            // The file's name came from the part.
            let id = try #require((uploaded["workout"] as? [String: Any])?["id"] as? String)
            let shown = try await system.get("/v1/workouts/\(id)", as: "alice")
            #expect(shown.status == 200)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// Issue 37, item 3: a multipart body parsed chunk by chunk as it arrived (off the cooperative
    /// pool, never joined) gives the file the whole body gives, wherever the chunks are cut (random
    /// cuts from a fixed seed, one a byte at a time): the boundary, a header, CRLFs split across chunks.
    @Test func aBodyParsedInChunksGivesTheSameFile() throws {
        let file = Array("<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg></trkseg></trk></gpx>\r\n--not-the-boundary\r\n".utf8)
        let boundary = "b0undary-37"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\na note\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.gpx\"\r\n\r\n".utf8) + file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        let whole = try MultipartUpload.file(in: ByteBuffer(bytes: body), boundary: boundary)
        #expect(whole == MultipartUpload(bytes: file, filename: "run.gpx"))
        let seed: UInt64 = 0x3_0037
        print("multipart chunks seed: \(String(seed, radix: 16))")
        var random = SplitMix64(seed: seed)
        for trial in 0..<200 {
            var chunks: [ByteBuffer] = []
            var offset = 0
            while offset < body.count {
                let size = trial == 0 ? 1 : Int(random.next() % 40) + 1
                chunks.append(ByteBuffer(bytes: body[offset..<min(body.count, offset + size)]))
                offset += size
            }
            let parsed = try MultipartUpload.file(in: &chunks, boundary: boundary)
            #expect(parsed == whole, "seed \(seed), trial \(trial)")
            #expect(chunks.allSatisfy { $0.readableBytes == 0 }, "every chunk let go once parsed")
        }
        // Two file parts are still refused, cut anywhere.
        var two = [
            ByteBuffer(bytes: body.dropLast(boundary.count + 8)),
            ByteBuffer(
                bytes: Array(
                    "\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"b.gpx\"\r\n\r\nx\r\n--\(boundary)--\r\n".utf8)),
        ]
        let refused = #expect(throws: Problem.self) { try MultipartUpload.file(in: &two, boundary: boundary) }
        #expect(refused?.detail.contains("2 file parts") == true, "\(String(describing: refused))")
    }
}
