import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import WorkFeedS3

/// Range requests to any HTTP server (a web server, a CDN, a bucket's public URL) over
/// async-http-client, each a GET with `Range` and `Accept-Encoding: identity` (a compressed answer
/// would not be the asked bytes), bounded by ``timeout``. The answer's body is taken in up to the
/// asked length (64 KiB for a shorter range, room for an error page): a server that ignores
/// `Range` and sends the whole archive is cut off there and refused.
struct HTTPRangeTransport: RangeTransport {
    let location: String
    var whatToCheck: String { "the URL, and that its server is up and answers range requests" }

    /// How long one request may take, connection included.
    let timeout: TimeAmount

    /// One HTTP client for the tilesets of the process (connections pooled per host, never shut
    /// down; redirects, such as a CDN's, followed). A connection that cannot be made fails its
    /// request at once instead of being tried again until the deadline (async-http-client's
    /// default): the picture fails as transient and the coordinator's back-off tries it again, so
    /// a render thread does not wait out the timeout for every picture while a server is down,
    /// and nothing is left backing off once it is back.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(10))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The most of an answer's body taken in for a range shorter than it.
    static let minimumBodyLimit = 64 << 10

    init(url: String, timeoutSeconds: Int) {
        location = url
        timeout = .seconds(Int64(max(1, timeoutSeconds)))
    }

    func get(_ range: Range<UInt64>, ifMatch: String?) throws(RemoteReadFailure) -> RangedBody {
        let asked = range.upperBound - range.lowerBound
        guard !range.isEmpty, asked <= UInt64(UInt32.max) else {
            throw RemoteReadFailure(kind: .badAnswer, message: "a range of \(asked) bytes cannot be asked for")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Range", value: ByteRange.header(range))
        headers.add(name: "Accept-Encoding", value: "identity")
        if let ifMatch { headers.add(name: "If-Match", value: ifMatch) }
        let response: HTTPClient.Response
        do {
            let request = try HTTPClient.Request(url: location, method: .GET, headers: headers)
            let accumulator = ResponseAccumulator(request: request, maxBodySize: max(Int(asked), Self.minimumBodyLimit))
            response = try Self.http.execute(request: request, delegate: accumulator, deadline: .now() + timeout).futureResult.wait()
        } catch let error as ResponseAccumulator.ResponseTooBigError {
            throw RemoteReadFailure(
                kind: .badAnswer,
                message: "the server sent more than the \(error.maxBodySize) bytes taken in for bytes \(range.lowerBound)-\(range.upperBound - 1): "
                    + "it ignores the Range header")
        } catch {
            throw RemoteReadFailure(kind: .noAnswer, message: "no answer: \(error)")
        }
        let status = Int(response.status.code)
        switch status {
        case 200, 206:
            switch ByteRange.body(of: response, asked: range) {
            case .success(let body): return body
            case .failure(let problem): throw RemoteReadFailure(kind: .badAnswer, status: status, message: problem.message)
            }
        case 412:
            throw RemoteReadFailure(kind: .changed, status: status, message: "HTTP 412 \(response.status.reasonPhrase)")
        case 404, 410:
            throw RemoteReadFailure(kind: .notFound, status: status, message: "HTTP \(status) \(response.status.reasonPhrase)")
        case 429, 500...599:
            throw RemoteReadFailure(kind: .serverTrouble, status: status, message: "HTTP \(status) \(response.status.reasonPhrase)")
        default:
            throw RemoteReadFailure(kind: .refused, status: status, message: "HTTP \(status) \(response.status.reasonPhrase)")
        }
    }
}
