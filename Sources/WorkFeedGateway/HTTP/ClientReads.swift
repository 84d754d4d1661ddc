import Foundation
import Synchronization

/// Picture reads under way for each client, bounded (`pictures.reads_per_client`; issue 37, item
/// 5): a read the memory cache does not answer costs a question to the coordinator and a store
/// read (a bucket round trip), so one client asking for many keys at once, made up or real,
/// takes at most its share and never delays the first views of the others.
final class ClientReads: Sendable {
    let perClient: Int
    private let reading = Mutex<[String: Int]>([:])

    init(perClient: Int) {
        self.perClient = perClient
    }

    /// Counts a read of `client`, unless it has ``perClient`` under way; an admitted one is
    /// ended with ``leave(_:)``.
    func enter(_ client: String) -> Bool {
        reading.withLock { reading in
            let own = reading[client, default: 0]
            guard own < perClient else { return false }
            reading[client] = own + 1
            return true
        }
    }

    func leave(_ client: String) {
        reading.withLock { reading in
            let own = reading[client, default: 1] - 1
            reading[client] = own > 0 ? own : nil
        }
    }

    /// The client a request comes from: its peer's address or, from one of `trustedProxies`, the
    /// last address of `X-Forwarded-For` that is not a trusted proxy (each proxy appends the
    /// address it heard from; what is left of that was written by the client and proves nothing).
    static func client(peer: String?, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        guard let peer else { return "unknown" }
        guard trustedProxies.contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return hops.last { !trustedProxies.contains($0) && !$0.isEmpty } ?? peer
    }
}
