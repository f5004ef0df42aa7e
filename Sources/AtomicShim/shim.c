// The header holds everything.
