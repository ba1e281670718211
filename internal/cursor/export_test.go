package cursor

// FrameCap reports the frame capacity w holds, for tests.
func FrameCap(w *Walker) int { return cap(w.frames) }
