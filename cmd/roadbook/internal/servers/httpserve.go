package servers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// h2cServer serves h over HTTP/1.1 and unencrypted HTTP/2, so Connect,
// gRPC and gRPC-Web share one port (as apiserver's own server does).
func h2cServer(h http.Handler) *http.Server {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &http.Server{Handler: h, Protocols: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
}

// serveErr drops the error every graceful Shutdown makes Serve return.
func serveErr(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// defaultBearer is --no-auth: a request without an Authorization header
// acts as the dev user (its token is added); a request with one is checked
// as usual, so other users still work.
func defaultBearer(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimSpace(r.Header.Get("Authorization")) == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+token)
		}
		next.ServeHTTP(w, r)
	})
}

// jsonIndent is the JSON of v, indented, with a final newline.
func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// withAdmin routes the API's admin paths (/metrics, gRPC reflection) to
// admin and everything else to public: `roadbook dev`, one process on
// loopback, serves both on its API port, where `roadbook api` keeps them
// on --admin-addr.
func withAdmin(public, admin http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", admin)
	mux.Handle("/grpc.reflection.v1.ServerReflection/", admin)
	mux.Handle("/grpc.reflection.v1alpha.ServerReflection/", admin)
	mux.Handle("/", public)
	return mux
}
