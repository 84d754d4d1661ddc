import WorkFeedS3

/// Range requests to an object in an S3-compatible bucket through the picture store's S3 client
/// (signed, with its credentials, endpoint and timeout: ``S3Client/get(_:range:ifMatch:)``).
struct S3RangeTransport: RangeTransport {
    let client: S3Client
    let key: String

    var location: String { "s3://\(client.configuration.bucket)/\(key)" }
    var whatToCheck: String { "the bucket and key, store.s3.endpoint (\(client.configuration.endpoint)) and the credentials" }

    func get(_ range: Range<UInt64>, ifMatch: String?) throws(RemoteReadFailure) -> RangedBody {
        do {
            return try client.get(key, range: range, ifMatch: ifMatch)
        } catch {
            let kind: RemoteReadFailure.Kind =
                switch error.kind {
                case .notFound: .notFound
                case .denied: .refused
                case .unavailable, .full: error.status == nil ? .noAnswer : .serverTrouble
                case .conditionFailed: .changed
                case .corrupt, .tooLarge: .badAnswer
                }
            throw RemoteReadFailure(kind: kind, status: error.status, message: error.summary)
        }
    }
}
