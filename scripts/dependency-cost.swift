// What "B after A" costs in each mechanism, with nothing else in the way: N empty units of
// work, then one that depends on all of them. Built and run by scripts/dependency-cost.
//
//   operation  N empty BlockOperations, and one that addDependency's each of them
//   gcd        N empty blocks in a DispatchGroup, and a notify
//   tasks      N empty child tasks in a TaskGroup, awaited
//
// Prints one line per mechanism and N: the median of 5 runs, in milliseconds, from the first
// unit submitted to the dependent one running.
import Dispatch
import Foundation

func milliseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func operations(_ count: Int) -> Double {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    let done = DispatchSemaphore(value: 0)
    return milliseconds {
        let units = (0..<count).map { _ in BlockOperation {} }
        let dependent = BlockOperation { done.signal() }
        units.forEach(dependent.addDependency)
        queue.addOperations(units + [dependent], waitUntilFinished: false)
        done.wait()
    }
}

func blocks(_ count: Int) -> Double {
    let queue = DispatchQueue(label: "units", attributes: .concurrent)
    let done = DispatchSemaphore(value: 0)
    return milliseconds {
        let group = DispatchGroup()
        for _ in 0..<count { queue.async(group: group) {} }
        group.notify(queue: .global()) { done.signal() }
        done.wait()
    }
}

func tasks(_ count: Int) -> Double {
    let done = DispatchSemaphore(value: 0)
    return milliseconds {
        Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask {} }
            }
            done.signal()
        }
        done.wait()
    }
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
for (name, measure) in [("operation", operations), ("gcd", blocks), ("tasks", tasks)] as [(String, (Int) -> Double)] {
    for count in counts.isEmpty ? [1000, 4000, 16000, 64000] : counts {
        let times = (0..<5).map { _ in measure(count) }.sorted()
        print(name, count, String(format: "%.2f", times[2]))
    }
}
