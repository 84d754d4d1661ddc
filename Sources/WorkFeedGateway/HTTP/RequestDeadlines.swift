import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request does not arrive in time, however its bytes trickle in: the
/// head (request line and headers) must arrive whole within ``head`` of the connection opening or
/// of the previous response, and the body, once the head is in, within ``body``. A response
/// that ends before its request's body was read whole ends the connection.
///
/// Hummingbird's idle timeout (``WorkFeedConfig/GatewayConfiguration/idleTimeoutSeconds``) counts
/// every part read as activity, so a body sent a byte every few seconds kept a connection, and the
/// handler waiting for it, for ever (issue 23). Sits after HTTP decoding, so it sees parts, not
/// bytes; a head is one part, which the decoder gives only once it is whole.
final class RequestDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let head: TimeAmount
    let body: TimeAmount
    private var timer: Scheduled<Void>?
    /// Requests whose head came and whose response has not ended yet.
    private var inHand = 0
    /// A request's head came and its end has not: its body is still arriving.
    private var reading = false

    init(head: TimeAmount, body: TimeAmount) {
        self.head = head
        self.body = body
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(head, context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(head, context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inHand += 1
            reading = true
            arm(body, context)
        case .body:
            break
        case .end:
            // The request is in; answering it takes what it takes (a picture request may wait).
            reading = false
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        inHand = max(0, inHand - 1)
        if reading {
            // Answered before its body was read (413 on a Content-Length over the limit): the rest
            // of the body is not waited for, nor read as the next request. The connection ends.
            disarm()
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
            return
        }
        if inHand == 0 { arm(head, context) }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: TimeAmount, _ context: ChannelHandlerContext) {
        disarm()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
