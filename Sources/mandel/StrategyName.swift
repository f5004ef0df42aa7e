import ApplyDriver
import ArgumentParser
import DispatchDriver
import MandelbrotCore
import OperationDriver
import PThreadDriver
import TaskGroupDriver
import ThreadDriver

/// The strategies a user can name on the command line.
enum StrategyName: String, CaseIterable, ExpressibleByArgument {
    case serial
    case thread
    case operation
    case gcd
    case apply
    case tasks
    case pthread

    /// Every name, comma-separated, for help and error messages.
    static var allowedList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The driver that implements it.
    var strategy: any RenderStrategy {
        switch self {
        case .serial: SerialStrategy()
        case .thread: ThreadStrategy()
        case .operation: OperationStrategy()
        case .gcd: DispatchStrategy()
        case .apply: ApplyStrategy()
        case .tasks: TaskGroupStrategy()
        case .pthread: PThreadStrategy()
        }
    }
}
