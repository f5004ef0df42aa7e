import ProcessDriver
import Testing

/// The one form a parent starts a helper with, built and read by the same type.
struct HelperLaunchTests {
    @Test(
        "a launch read back from its own arguments is the same launch",
        arguments: [
            HelperLaunch(slot: 0, generation: 0, parent: 1),
            HelperLaunch(slot: 3, generation: 17, parent: 4_242),
            HelperLaunch(slot: 15, generation: 2, parent: 99),
            HelperLaunch(slot: Int.max, generation: Int.max, parent: Int32.max),
        ])
    func roundTrip(launch: HelperLaunch) {
        #expect(launch.arguments.first == "helper")
        #expect(HelperLaunch(arguments: launch.arguments) == launch)
    }

    @Test(
        "any other form is not a launch (the argument parser reads it instead)",
        arguments: [
            [],
            ["helper"],
            ["helper", "--slot", "1", "--generation", "2"],
            ["helper", "--slot", "1", "--generation", "2", "--parent", "3", "4"],
            ["render", "--slot", "1", "--generation", "2", "--parent", "3"],
            ["helper", "--generation", "2", "--slot", "1", "--parent", "3"],
            ["helper", "--slot", "1", "--generation", "2", "--parents", "3"],
            ["helper", "--slot", "x", "--generation", "2", "--parent", "3"],
            ["helper", "--slot", "1", "--generation", "2.0", "--parent", "3"],
            ["helper", "--slot", "1", "--generation", "2", "--parent", "2147483648"],
            ["helper", "--slot", "1", "--generation", "2", "--parent", ""],
            ["helper", "--slot", "99999999999999999999", "--generation", "2", "--parent", "3"],
        ])
    func otherForms(arguments: [String]) {
        #expect(HelperLaunch(arguments: arguments) == nil)
    }
}
