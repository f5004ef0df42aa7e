import ArgumentParser

/// The options `compare` and `sweep` share: the workload (view, work split), how it is measured,
/// the behaviour probes, the histogram's sharing and the first picture.
struct WorkloadOptions: ParsableArguments {
    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @OptionGroup(title: "Measurement")
    var measurement: MeasurementOptions

    @OptionGroup(title: "Behaviour")
    var behaviour: BehaviourOptions

    @OptionGroup(title: "Sharing the histogram")
    var sharing: SharingOptions

    @OptionGroup(title: "First picture")
    var firstPicture: PreviewOptions
}
