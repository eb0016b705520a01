package apiserver

import (
	"context"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/roadbook/roadbook/planner"
)

// write is the one path of every write RPC. The handler gives the request,
// its idempotency key field and validate-only flag, the use case (do) and
// the answer of an outcome (respond); write adds the rest once: the key (the
// field, else the Idempotency-Key header), the procedure (the request's
// spec), the request's fingerprint, the stored answer a replay gets back,
// and the one error exit.
func write[Res any, PR interface {
	*Res
	proto.Message
}](ctx context.Context, s *shared, req connect.AnyRequest, key *string, validateOnly bool,
	do func(planner.Write) (planner.Outcome, error), respond func(planner.Outcome) *Res,
) (*connect.Response[Res], error) {
	w := planner.Write{
		Procedure: req.Spec().Procedure, Key: idemKey(key, req.Header()), ValidateOnly: validateOnly,
		Respond: func(o planner.Outcome) ([]byte, error) {
			return proto.MarshalOptions{Deterministic: true}.Marshal(PR(respond(o)))
		},
	}
	if w.Key != "" { // only a keyed write is compared with an earlier one
		w.Fingerprint = fingerprint(req.Any())
	}
	o, err := do(w)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if !o.Replayed {
		return connect.NewResponse(respond(o)), nil
	}
	first := new(Res)
	if err := proto.Unmarshal(o.Answer, PR(first)); err != nil {
		return nil, s.fail(ctx, err)
	}
	resp := connect.NewResponse(first)
	resp.Header().Set(ReplayedHeader, "true")
	return resp, nil
}

// ReplayedHeader marks an answer that is a replay of an idempotency key's
// first answer, not the result of acting now. The body is the first answer
// byte for byte; a caller that derived the key itself (the MCP service)
// reads the mark to check that the first answer is still true before
// handing it on.
const ReplayedHeader = "Idempotency-Replayed"

// idemKey is the request's key field, else the Idempotency-Key header.
func idemKey(field *string, header http.Header) string {
	if field != nil && *field != "" {
		return *field
	}
	return header.Get("Idempotency-Key")
}

// fingerprint is the request without its idempotency key: the same key
// with another request is a conflict, the same request a replay. The copy
// without the key is shallow (its fields share the request's values, which
// neither side modifies): an upload's content is up to 30 MiB, and a deep
// copy (proto.Clone) copied it once more before marshalling copied it again.
// The bytes are those of the request cloned and cleared
// (TestFingerprintIsTheClearedRequest).
func fingerprint(msg any) []byte {
	m, ok := msg.(proto.Message)
	if !ok {
		return nil
	}
	src := m.ProtoReflect()
	req := src.New()
	src.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f.Name() != idempotencyKeyField {
			req.Set(f, v)
		}
		return true
	})
	if u := src.GetUnknown(); len(u) > 0 {
		req.SetUnknown(u)
	}
	body, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req.Interface())
	return body
}

// idempotencyKeyField is the name every write request gives its key.
const idempotencyKeyField = "idempotency_key"
