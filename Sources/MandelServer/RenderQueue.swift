/// The tiles waiting for a render slot, first come first served: at most `slots` render at
/// once, at most `capacity` wait, and a waiting tile whose client went away leaves the line.
///
/// The page asks for the tiles nearest its centre first, so the order of arrival is the order
/// of importance; a full line answers at once (`503` with `Retry-After`) rather than queueing
/// work that will be stale by the time it starts.
actor RenderQueue {
    /// How a tile's wait ended.
    enum Admission {
        /// A slot is the tile's: render it, then ``leave()``.
        case granted
        /// The line was full: nothing was queued.
        case full
        /// The client went away while the tile waited.
        case cancelled
    }

    let slots: Int
    let capacity: Int
    private var rendering = 0
    private var waiting: [(ticket: Int, resume: CheckedContinuation<Admission, Never>)] = []
    /// Tickets cancelled before they joined the line (the cancel raced ahead of ``enter(ticket:)``).
    private var cancelledEarly: Set<Int> = []

    init(slots: Int, capacity: Int) {
        precondition(slots >= 1 && capacity >= 0, "a queue renders at least one tile at a time")
        self.slots = slots
        self.capacity = capacity
    }

    /// Waits for a slot for `ticket` (unique per tile).
    func enter(ticket: Int) async -> Admission {
        if cancelledEarly.remove(ticket) != nil { return .cancelled }
        if rendering < slots && waiting.isEmpty {
            rendering += 1
            return .granted
        }
        guard waiting.count < capacity else { return .full }
        return await withCheckedContinuation { waiting.append((ticket, $0)) }
    }

    /// Gives a slot back: the first tile waiting takes it.
    func leave() {
        if waiting.isEmpty {
            rendering -= 1
        } else {
            waiting.removeFirst().resume.resume(returning: .granted)
        }
    }

    /// Takes `ticket` out of the line, if it waits there (or before it gets there).
    func cancel(ticket: Int) {
        if let index = waiting.firstIndex(where: { $0.ticket == ticket }) {
            waiting.remove(at: index).resume.resume(returning: .cancelled)
        } else {
            cancelledEarly.insert(ticket)
        }
    }

    /// Forgets that `ticket` was cancelled early, once its request is over.
    func forget(ticket: Int) { cancelledEarly.remove(ticket) }

    /// Tiles rendering now, and waiting.
    var occupancy: (rendering: Int, waiting: Int) { (rendering, waiting.count) }
}
