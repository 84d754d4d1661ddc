import Synchronization

/// A request to stop, shared by whoever asks (`stop()`) and the loop that must end. The loop is
/// also woken through an inproc socket, at once; this flag, which it checks every turn, makes the
/// stop happen even when that socket cannot be made (a context out of sockets, say).
public final class StopRequest: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func request() { flag.store(true, ordering: .releasing) }

    public var isRequested: Bool { flag.load(ordering: .acquiring) }
}
