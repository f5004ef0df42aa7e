import Dispatch
import Foundation
import Synchronization

extension Notification.Name {
    /// Posted (with the render's `RenderCompletion` as the object) when every operation of a render has finished.
    static let mandelbrotRenderDidFinish = Notification.Name("MandelbrotRenderDidFinish")
}

/// The notification that completes a render, and the observer on the main queue that receives it.
final class RenderCompletion: Sendable {
    private let observation = ObservationToken()

    init(completion: @escaping @Sendable () -> Void) {
        let observation = self.observation
        observation.token = NotificationCenter.default.addObserver(
            forName: .mandelbrotRenderDidFinish, object: self, queue: .main
        ) { _ in
            // On the main queue: stop observing, then hand over the result.
            if let token = observation.token { NotificationCenter.default.removeObserver(token) }
            observation.token = nil
            completion()
        }
    }

    /// Posts the notification; called once, from the completion block of the last operation.
    func post() {
        // Waits until the observer has run on the main queue; the main queue never waits for workers.
        NotificationCenter.default.post(name: .mandelbrotRenderDidFinish, object: self)
    }
}

/// The observer registration, kept so the observer can remove itself.
final class ObservationToken: @unchecked Sendable {
    // @unchecked: written once in RenderCompletion.init, before any operation
    // is queued (so before any post), then read and cleared only by the
    // observer on the main queue; NotificationCenter's own locking orders the two.
    var token: (any NSObjectProtocol)?
}

/// Tells the main queue once that the preview is done, whichever of two paths comes first.
final class PreviewAnnouncement: Sendable {
    private let told = Atomic(false)
    private let firstDone: @Sendable () -> Void

    init(_ firstDone: @escaping @Sendable () -> Void) { self.firstDone = firstDone }

    func tell() {
        guard !told.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.main.async(execute: firstDone)
    }
}
