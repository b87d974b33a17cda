package live

import (
	"errors"
	"testing"
	"time"
)

// Describe's wall-clock times: an event's own "at" first, else the
// daemon's epoch plus its seconds; none when neither is known.
func TestEventTimesPreferAtThenEpoch(t *testing.T) {
	events := []Event{{Time: 1.5}, {Time: 3}}
	raw := []byte(`{"epoch":"2025-01-02T03:04:05Z","history":[{"at":"2025-06-01T00:00:00Z"},{}]}`)
	got := eventTimes(raw, events)
	want := []time.Time{time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 2, 3, 4, 8, 0, time.UTC)}
	if len(got) != 2 || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) {
		t.Errorf("times %v, want %v", got, want)
	}
	if got := eventTimes([]byte(`{"history":[{}]}`), events[:1]); got != nil {
		t.Errorf("no at and no epoch: %v, want none", got)
	}
	if got := eventTimes(nil, events); got != nil {
		t.Errorf("no answer: %v, want none", got)
	}
}

// What a daemon says is made printable, and a refusal stays one.
func TestShownErrorsArePrintableAndKeepTheRefusal(t *testing.T) {
	var ae *APIError
	err := shown(&APIError{Status: 400, Msg: "no team \x1b[31mred"})
	if !errors.As(err, &ae) || ae.Status != 400 || err.Error() != `no team \x1b[31mred` {
		t.Errorf("refusal: %#v", err)
	}
	err = shown(&LostError{errors.New("reset\n")})
	if errors.As(err, &ae) || err.Error() != `no answer from the allot daemon (it may have acted on the request): reset\n` {
		t.Errorf("lost answer: %q", err)
	}
	if shown(nil) != nil {
		t.Error("no error became one")
	}
}
