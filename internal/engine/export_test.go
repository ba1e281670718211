package engine

// SetBetweenPasses sets the function called between the size and the
// write pass of every encoding (nil: none), for tests that change a
// message during a call.
func SetBetweenPasses(f func()) { betweenPasses = f }
