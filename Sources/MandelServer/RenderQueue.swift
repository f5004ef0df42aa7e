import Platform

/// The tiles waiting for a render slot, first come first served: at most `slots` render at
/// once, at most `capacity` wait, and a waiting tile whose client went away leaves the line.
///
/// The page asks for the tiles nearest its centre first, so the order of arrival is the order
/// of importance; a full line answers at once (`503` with `Retry-After`) rather than queueing
/// work that will be stale by the time it starts. A cancel may come from any thread at any
/// moment (the connection's closing), before, during or after a tile's wait: it is taken at
/// once, under the queue's lock.
final class RenderQueue: Sendable {
    /// How a tile's wait ended.
    enum Admission {
        /// A slot is the tile's: render it, then ``leave()``.
        case granted
        /// The line was full: nothing was queued.
        case full
        /// The client went away before the tile had a slot.
        case cancelled
    }

    private struct State {
        var rendering = 0
        var waiting: [(ticket: Int, resume: CheckedContinuation<Admission, Never>)] = []
        /// Tickets that have asked for a slot and not yet ended (``forget(ticket:)``).
        var entered: Set<Int> = []
        /// Tickets cancelled before they asked (the cancel raced ahead of ``enter(ticket:)``).
        var cancelledEarly: Set<Int> = []
    }

    let slots: Int
    let capacity: Int
    private let state = Locked(State())

    init(slots: Int, capacity: Int) {
        precondition(slots >= 1 && capacity >= 0, "a queue renders at least one tile at a time")
        self.slots = slots
        self.capacity = capacity
    }

    /// Waits for a slot for `ticket` (unique per tile).
    func enter(ticket: Int) async -> Admission {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Admission? in
                if state.cancelledEarly.remove(ticket) != nil { return .cancelled }
                state.entered.insert(ticket)
                if state.rendering < slots && state.waiting.isEmpty {
                    state.rendering += 1
                    return .granted
                }
                guard state.waiting.count < capacity else { return .full }
                state.waiting.append((ticket, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Gives a slot back: the first tile waiting takes it.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Admission, Never>? in
            guard !state.waiting.isEmpty else {
                state.rendering -= 1
                return nil
            }
            return state.waiting.removeFirst().resume
        }
        next?.resume(returning: .granted)
    }

    /// Takes `ticket` out of the line if it waits there; remembers the cancel if it has not asked yet.
    func cancel(ticket: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Admission, Never>? in
            if let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) {
                return state.waiting.remove(at: index).resume
            }
            if !state.entered.contains(ticket) { state.cancelledEarly.insert(ticket) }
            return nil
        }
        waiter?.resume(returning: .cancelled)
    }

    /// Forgets `ticket`, once its request is over and its cancel can no longer come.
    func forget(ticket: Int) {
        state.withLock { state in
            state.entered.remove(ticket)
            state.cancelledEarly.remove(ticket)
        }
    }

    /// Tiles rendering now, and waiting.
    var occupancy: (rendering: Int, waiting: Int) { state.withLock { ($0.rendering, $0.waiting.count) } }
}
