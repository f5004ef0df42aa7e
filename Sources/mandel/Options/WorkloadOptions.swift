import ArgumentParser

/// The options every rendering command shares: the view, the work split, the behaviour
/// probes, the histogram's sharing and the first picture.
struct WorkloadOptions: ParsableArguments {
    @OptionGroup(title: "View")
    var view: ViewOptions

    @OptionGroup(title: "Work split")
    var work: WorkOptions

    @OptionGroup(title: "Behaviour")
    var behaviour: BehaviourOptions

    @OptionGroup(title: "Sharing the histogram")
    var sharing: SharingOptions

    @OptionGroup(title: "First picture")
    var firstPicture: PreviewOptions
}
