/// The program's version: what `mandel --version` prints and every picture's Software chunk names.
package enum MandelVersion {
    package static let current = "0.2.0"
}
