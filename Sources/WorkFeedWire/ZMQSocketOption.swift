/// The ZeroMQ socket options WorkFeed sets, as typed values (``ZMQSocket/set(_:)``), so that only
/// WorkFeedWire imports libzmq.
public enum ZMQSocketOption: Sendable, Hashable {
    /// ROUTER: a message to a peer that is gone, or whose queue is full, fails at once instead of
    /// being dropped silently (`ZMQ_ROUTER_MANDATORY`).
    case routerMandatory(Bool)
    /// A peer that sends a larger message is disconnected (`ZMQ_MAXMSGSIZE`, bytes).
    case maximumMessageSize(Int64)
    /// Messages queued for one peer before sending blocks or drops (`ZMQ_SNDHWM`; libzmq: 1,000).
    case sendHighWaterMark(Int32)
    /// Messages queued from one peer before receiving stops reading it (`ZMQ_RCVHWM`).
    case receiveHighWaterMark(Int32)
    /// How long a blocking send waits, in milliseconds; -1 forever (`ZMQ_SNDTIMEO`).
    case sendTimeout(milliseconds: Int32)
    /// How long a blocking receive waits, in milliseconds; -1 forever (`ZMQ_RCVTIMEO`).
    case receiveTimeout(milliseconds: Int32)
    /// The identity a ROUTER sees this DEALER by (`ZMQ_ROUTING_ID`).
    case routingID(String)
    /// How long closing waits for unsent messages, in milliseconds (`ZMQ_LINGER`).
    case linger(milliseconds: Int32)
}
