public import Foundation
public import WorkFeedStore

/// How tilesets that are not files on this host are reached: `s3://` archives through an S3
/// client made as the picture store makes its own (`store.s3.*`, then the environment, the AWS
/// way: ``PictureStores/client(bucket:s3:environment:)``, with its own timeout); `https://` ones
/// by plain range requests within ``timeoutSeconds``.
public struct TilesetAccess: Sendable {
    /// `store.s3.*` of the program's configuration.
    public var s3: S3StoreSettings
    /// Where `AWS_REGION` and the like are read.
    public var environment: [String: String]
    /// How long one `https://` range request may take, connecting included. A server that does
    /// not answer costs a picture this long before it fails (async-http-client tries to connect
    /// again until then).
    public var timeoutSeconds: Int

    public init(
        s3: S3StoreSettings = S3StoreSettings(), environment: [String: String] = ProcessInfo.processInfo.environment, timeoutSeconds: Int = 10
    ) {
        self.s3 = s3
        self.environment = environment
        self.timeoutSeconds = timeoutSeconds
    }
}
