package configs

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// A broker error is printed by its Java exception's simple name, Java's
// name where the Errors naming rule would give another.
func TestJavaExceptionNames(t *testing.T) {
	for err, want := range map[error]string{
		kerr.ResourceNotFound:   "ResourceNotFoundException: " + kerr.ResourceNotFound.Description,
		kerr.UnknownServerError: "UnknownServerException: " + kerr.UnknownServerError.Description,
		kerr.RequestTimedOut:    "TimeoutException: " + kerr.RequestTimedOut.Description,
		&Error{Err: kerr.ClusterAuthorizationFailed, Message: "denied"}: "ClusterAuthorizationException: denied",
	} {
		if got := javaException(err); got != want {
			t.Errorf("%v: got %q, want %q", err, got, want)
		}
	}
}
