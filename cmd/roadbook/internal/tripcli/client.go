package tripcli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/devstate"
	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	"github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"
)

// clientFlags say which API the CLI talks to and as whom: --api-url and
// --token, or else the dev.json of --data-dir.
type clientFlags struct {
	dataDir, apiURL string
	token           *string
}

// register adds the connection flags.
func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dataDir, "data-dir", "./.roadbook", "a dev instance's data directory, whose dev.json names the API and a token")
	fs.StringVar(&c.apiURL, "api-url", "", "the Connect API's base URL (default: dev.json's) ($ROADBOOK_API_URL)")
	c.token = envflag.Secret(fs, "token", "bearer token (default: dev.json's API token) ($ROADBOOK_TOKEN)")
}

// apiClients are the Connect clients the CLI uses, as a frontend would.
type apiClients struct {
	trips   roadbookv1connect.TripServiceClient
	watch   roadbookv1connect.WatchServiceClient
	exports roadbookv1connect.ExportServiceClient
}

// clients resolves the URL and token and builds the clients.
func (c *clientFlags) clients() (*apiClients, error) {
	url, tok := c.apiURL, *c.token
	if url == "" || tok == "" {
		info, err := devstate.ReadInfo(c.dataDir)
		if err != nil {
			return nil, err
		}
		if url == "" {
			url = info.APIURL
		}
		if tok == "" {
			tok = info.APIToken
		}
	}
	// No overall timeout: WatchTrip is a long-lived stream; unary calls are
	// bounded by their contexts.
	hc := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 2 * time.Minute}}
	opt := connect.WithInterceptors(bearerInterceptor(tok))
	return &apiClients{
		trips:   roadbookv1connect.NewTripServiceClient(hc, url, opt),
		watch:   roadbookv1connect.NewWatchServiceClient(hc, url, opt),
		exports: roadbookv1connect.NewExportServiceClient(hc, url, opt),
	}, nil
}

// bearerInterceptor adds the token to every unary call and stream.
type bearerInterceptor string

// WrapUnary implements connect.Interceptor.
func (b bearerInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+string(b))
		return next(ctx, req)
	}
}

// WrapStreamingClient implements connect.Interceptor.
func (b bearerInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		return conn
	}
}

// WrapStreamingHandler implements connect.Interceptor (the CLI serves nothing).
func (b bearerInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// apiError is the one translation of an API error for the terminal: the
// ErrorInfo code and field when the API sent one, else the Connect code.
func apiError(err error) error {
	ce := new(connect.Error)
	if !asConnectError(err, &ce) {
		return err
	}
	if info := errorInfoOf(ce); info != nil {
		if flag, ok := flagOfField[info.GetField()]; ok {
			return fmt.Errorf("%s: %s: %s", codeName(info.GetCode()), flag, strings.TrimPrefix(ce.Message(), info.GetField()+": "))
		}
		msg := fmt.Sprintf("%s: %s", codeName(info.GetCode()), ce.Message())
		if info.GetField() != "" {
			msg += fmt.Sprintf(" (field %s)", info.GetField())
		}
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("%s: %s", ce.Code(), ce.Message())
}

// flagOfField names the command-line flag behind an API field, so an error
// about it speaks of what the user typed: "--stage: no such stage", not the
// API's 0-based stageIndex.
var flagOfField = map[string]string{"stageIndex": "--stage"}
