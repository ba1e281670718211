// Package appendx appends to a slice in place.
//
// append(s, T{a, b}) builds the new element in a temporary on the stack
// and copies it into the slice. When the temporary is written field by
// field and copied with wider loads, as for structs holding a
// protoreflect.Value, the loads cannot take their data from the pending
// stores, and each append waits for them to reach the cache: on the
// sizer's tape that wait was a tenth of the encoder's time on map-heavy
// messages, without showing in counted instructions. One returns the new
// element to be set field by field instead.
package appendx

// One extends *s by one element and returns a pointer to it. The element
// holds whatever an earlier use of the backing array left there, or the
// zero value when the slice grows: the caller must set every field.
func One[T any](s *[]T) *T {
	n := len(*s)
	if n < cap(*s) {
		*s = (*s)[:n+1]
	} else {
		var zero T
		*s = append(*s, zero)
	}
	return &(*s)[n]
}
