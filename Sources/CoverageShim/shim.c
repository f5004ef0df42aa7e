// The header's inline function is the whole module; SwiftPM needs one source file.
#include "CoverageShim.h"
