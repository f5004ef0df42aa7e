import Dispatch

/// The strategy's own queue, labelled `mandel.draw` and tagged so code can check it runs there.
///
/// `dispatch_get_current_queue` is deprecated and unsafe; queue-specific data
/// is the supported way to ask "am I on this queue?".
struct DrawQueue: Sendable {
    private static let key = DispatchSpecificKey<ObjectIdentifier>()

    /// The queue itself.
    let queue: DispatchQueue
    private let tag: Tag

    /// A fresh object per queue, so the tag identifies this queue and no other.
    private final class Tag: Sendable {}

    /// Creates a serial queue, or a concurrent one.
    init(concurrent: Bool) {
        queue = DispatchQueue(label: "mandel.draw", qos: .userInitiated, attributes: concurrent ? .concurrent : [])
        tag = Tag()
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(tag))
    }

    /// In debug builds, traps unless the caller runs on this draw queue.
    func assertOnDrawQueue() {
        assert(DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(tag), "tile rendered off the draw queue")
    }
}
