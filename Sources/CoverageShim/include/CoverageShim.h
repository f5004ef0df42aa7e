#ifndef MANDEL_COVERAGE_SHIM_H
#define MANDEL_COVERAGE_SHIM_H

// LLVM's profile runtime, present only in a build with code coverage (scripts/coverage): a weak
// reference is null everywhere else.
extern int __llvm_profile_write_file(void) __attribute__((weak));

/// Writes a coverage build's counts now. The runtime writes them from an exit handler, and mandel
/// ends with `_exit`, which runs none; in any other build this does nothing.
static inline void mandel_write_coverage(void) {
    if (__llvm_profile_write_file) (void)__llvm_profile_write_file();
}

#endif
