import Foundation

/// Runs blocking work (stopping threads and waiting for them) on a thread of its own and waits
/// for it without holding one of Swift's cooperative threads (two here), which the rest of the
/// process needs meanwhile.
public func onOwnThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            body()
            continuation.resume()
        }
    }
}
