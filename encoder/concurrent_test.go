package encoder_test

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protolayout/protolayout/encoder"
	"github.com/protolayout/protolayout/protobuftest"
)

// TestEncoderSharedByGoroutines shares one Encoder between goroutines, as
// its documentation forbids: every call must give the right bytes or
// ErrConcurrentUse, never wrong bytes, an empty result or a crash.
func TestEncoderSharedByGoroutines(t *testing.T) {
	tw := protobuftest.TwinByName("protolayout.test3.TestAllTypes")
	var msgs []proto.Message
	var wants [][]byte
	for seed := range uint64(4) {
		m := tw.Dyn.New()
		protobuftest.Fill(m, seed, protobuftest.RandOptions{MaxList: 16})
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		msgs, wants = append(msgs, m.Interface()), append(wants, want)
	}
	enc := encoder.NewEncoder(encoder.MarshalOptions{Deterministic: true})
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	var refused, done atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range rounds {
				k := (g + i) % len(msgs)
				var got []byte
				var err error
				switch i % 3 {
				case 0:
					got, err = enc.Marshal(msgs[k])
				case 1:
					got, err = enc.MarshalAppend(make([]byte, 0, 64), msgs[k])
				default:
					var n int
					n, err = enc.Size(msgs[k])
					if err == nil && n != len(wants[k]) {
						t.Errorf("Size = %d, want %d", n, len(wants[k]))
						return
					}
					if err == nil {
						got = wants[k]
					}
				}
				switch {
				case errors.Is(err, encoder.ErrConcurrentUse):
					if len(got) != 0 {
						t.Errorf("a refused call returned %d bytes", len(got))
						return
					}
					refused.Add(1)
				case err != nil:
					t.Errorf("unexpected error: %v", err)
					return
				case !bytes.Equal(got, wants[k]):
					t.Errorf("wrong bytes from a shared Encoder (%d bytes, want %d)", len(got), len(wants[k]))
					return
				default:
					done.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls encoded, %d refused as concurrent", done.Load(), refused.Load())
	// Once the goroutines are gone the Encoder works again.
	if got, err := enc.Marshal(msgs[0]); err != nil || !bytes.Equal(got, wants[0]) {
		t.Fatalf("after the concurrent calls: %v", err)
	}
}
