import Foundation
import Testing
import WorkFeedModel
import WorkFeedTokens

/// Who may see what: every owner endpoint refuses requests without a valid token (401), and an
/// owner never sees, requests, changes or deletes another owner's workouts (404, as for an id that
/// does not exist).
@Suite(.serialized) struct AccessTests {
    /// Every owner endpoint, for a workout id.
    static func endpoints(_ id: String) -> [(method: String, path: String)] {
        [
            ("GET", "/v1/feed"), ("GET", "/v1/changes?since=0"), ("POST", "/v1/workouts"), ("GET", "/v1/workouts/\(id)"),
            ("DELETE", "/v1/workouts/\(id)"), ("GET", "/v1/workouts/\(id)/pictures/route/light?wait=0"),
        ]
    }

    @Test func everyOwnerEndpointNeedsAValidToken() async throws {
        let system = try await GatewaySystem(reach: .router, workers: 0)
        do {
            let id = UUID().uuidString.lowercased()
            let valid = system.token("alice")
            let parts = valid.split(separator: ".")
            // With the code a client switches on (the feed page says "your sign-in has expired").
            let tokens: [(String, String?, reason: String)] = [
                ("none", nil, "missing"),
                ("expired", system.token("alice", expires: -3600), "expired"),
                ("malformed", "not.a-token", "malformed"),
                ("garbage", "!!!", "malformed"),
                ("wrongly signed", system.token("alice", secret: Array("another secret of at least thirty-two bytes".utf8)), "bad-signature"),
                ("signature of another token", parts[0] + "." + parts[1] + "." + system.token("bob").split(separator: ".")[2], "bad-signature"),
                ("alg none", Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + ".", "malformed"),
                ("no sub", Self.sign(#"{"exp":\#(Int(Date().timeIntervalSince1970) + 3600)}"#, secret: system.secret), "malformed"),
                ("no exp", Self.sign(#"{"sub":"alice"}"#, secret: system.secret), "malformed"),
            ]
            for (label, token, reason) in tokens {
                for (method, path) in Self.endpoints(id) {
                    var headers: [String: String] = [:]
                    if let token { headers["Authorization"] = "Bearer " + token }
                    let reply = try await system.call(method, path, headers: headers, body: method == "POST" ? Data("x".utf8) : nil)
                    #expect(reply.status == 401, "\(label): \(method) \(path)")
                    #expect(reply.json["type"] as? String == "urn:workfeed:problem:unauthorized", "\(label)")
                    #expect(reply.json["reason"] as? String == reason, "\(label): \(reply.json["detail"] ?? "")")
                    #expect(reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(label)")
                }
            }
            // Basic authentication is not a bearer token either.
            #expect(try await system.call("GET", "/v1/feed", headers: ["Authorization": "Basic YWxpY2U6cGFzcw=="]).status == 401)
            // The public endpoints need none.
            #expect(try await system.get("/healthz").status == 200)
            #expect(try await system.get("/").status == 200)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    @Test func anotherOwnersWorkoutsAreNotFoundOnEveryEndpoint() async throws {
        let system = try await GatewaySystem(reach: .router)
        do {
            let upload = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "alice")
            let id = try #require(upload.uploaded["id"] as? String)
            let picture = try await system.get("/v1/workouts/\(id)/pictures/route/light?wait=10", as: "alice")
            #expect(picture.status == 200)

            for (method, path) in Self.endpoints(id) where path.contains(id) {
                let reply = try await system.call(method, path, token: system.token("mallory"))
                #expect(reply.status == 404, "\(method) \(path)")
                #expect(reply.json["type"] as? String == "urn:workfeed:problem:not-found")
            }
            // Mallory's feed and changes do not show it; her own upload of the same file is hers.
            #expect((try await system.get("/v1/feed", as: "mallory").json["items"] as? [Any])?.isEmpty == true)
            #expect((try await system.get("/v1/changes?since=0", as: "mallory").json["changes"] as? [Any])?.isEmpty == true)
            let own = try await system.upload(fixture("strava_run_2015_short_gpxtpx-hr.gpx"), as: "mallory")
            #expect(own.status == 201 && own.uploaded["id"] as? String != id)
            // Nothing of alice's changed: her workout and picture are still there.
            #expect(try await system.get("/v1/workouts/\(id)", as: "alice").status == 200)
            let shown = try await system.get("/v1/workouts/\(id)", as: "alice")
            let pictures = shown.json["pictures"] as? [[String: Any]] ?? []
            #expect(pictures.contains { $0["theme"] as? String == "light" && $0["scale"] as? Int == 1 && $0["status"] as? String == "generated" })
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    static func sign(_ claims: String, secret: [UInt8]) -> String {
        let input = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(HMACSHA256.authenticationCode(for: input.utf8, key: secret))
    }
}
