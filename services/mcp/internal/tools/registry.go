package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one registered tool: its published definition, the scope it
// needs, and a handler that validates, runs and answers.
type Tool struct {
	// Name is the tool name agents call.
	Name string
	// Scope is the OAuth scope a caller needs (ScopeRead or ScopeWrite).
	Scope string
	def   *mcp.Tool
	in    *jsonschema.Resolved
	// outType is the Go type of the tool's results, whose soundness
	// (SoundOutput) Register checks instead of validating every result.
	outType reflect.Type
	// fields maps API field paths (JSON names) to this tool's argument
	// names where they differ, for errors; other paths are the tool's own.
	fields map[string]string
	run    func(ctx context.Context, c *call, raw json.RawMessage) (any, error)
	// valid remembers arguments this tool accepted (shared by copies).
	valid *validCache
}

// Definition is the tool as tools/list publishes it.
func (t Tool) Definition() *mcp.Tool { return t.def }

// spec is what a tool author writes besides the handler.
type spec struct {
	name, title, description, scope string
	annotations                     mcp.ToolAnnotations
	// input adjusts the inferred input schema (enums, bounds, patterns);
	// it must keep every object closed, which Register checks.
	input func(s *jsonschema.Schema)
	// There is deliberately no output adjustment: the output schema is
	// exactly the one inferred from Out, which SoundOutput proves every
	// result encodes within.
	fields map[string]string
}

// call is one invocation as a handler sees it.
type call struct {
	env    *Env
	tool   *Tool
	caller Caller
	req    *mcp.CallToolRequest
	// args are the arguments as sent (validated), for digests.
	args json.RawMessage
}

// define builds a Tool from typed In/Out structs: the schemas are inferred
// from the structs (closed: additionalProperties false), the handler gets a
// decoded In and returns an Out, which validates against the output schema
// by construction (Register refuses an Out type for which that does not
// hold, see SoundOutput).
func define[In, Out any](sp spec, h func(ctx context.Context, c *call, in In) (Out, error)) Tool {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", sp.name, err))
	}
	if sp.input != nil {
		sp.input(in)
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", sp.name, err))
	}
	ann := sp.annotations
	t := Tool{
		Name:  sp.name,
		Scope: sp.scope,
		def: &mcp.Tool{
			Name: sp.name, Title: sp.title, Description: sp.description,
			Annotations: &ann, InputSchema: in, OutputSchema: out,
		},
		fields:  sp.fields,
		outType: reflect.TypeFor[Out](),
		valid:   &validCache{},
	}
	t.run = func(ctx context.Context, c *call, raw json.RawMessage) (any, error) {
		var v In
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, invalid("", "the arguments do not decode: "+bound(err.Error(), 160))
		}
		return h(ctx, c, v)
	}
	return t
}

// Register checks every tool and adds it to s. It refuses (and adds
// nothing) when a tool's input schema is open anywhere — an object that does
// not say additionalProperties: false would let an undeclared argument be
// dropped in silence —, when a tool's output type could encode a value its
// output schema rejects (SoundOutput: that is what lets results skip
// validation on every call), or when two tools share a name. Schemas are
// resolved here, once.
func Register(s *mcp.Server, env *Env, all []Tool) error {
	seen := map[string]bool{}
	for i := range all {
		t := &all[i]
		if seen[t.Name] {
			return fmt.Errorf("tools: %s registered twice", t.Name)
		}
		seen[t.Name] = true
		if err := ClosedSchema(t.def.InputSchema.(*jsonschema.Schema)); err != nil {
			return fmt.Errorf("tools: %s: %w", t.Name, err)
		}
		if t.def.Description == "" || t.def.Title == "" || t.def.Annotations == nil {
			return fmt.Errorf("tools: %s lacks a title, description or annotations", t.Name)
		}
		if err := SoundOutput(t.outType); err != nil {
			return fmt.Errorf("tools: %s: %w", t.Name, err)
		}
		var err error
		if t.in, err = t.def.InputSchema.(*jsonschema.Schema).Resolve(nil); err != nil {
			return fmt.Errorf("tools: %s: input schema: %w", t.Name, err)
		}
		if _, err = t.def.OutputSchema.(*jsonschema.Schema).Resolve(nil); err != nil {
			return fmt.Errorf("tools: %s: output schema: %w", t.Name, err)
		}
	}
	for i := range all {
		t := &all[i]
		s.AddTool(t.def, t.handler(env))
	}
	return nil
}

// ErrOpenSchema is a tool input schema with an object that accepts
// undeclared properties.
var ErrOpenSchema = errors.New("input schema is open")

// ClosedSchema reports an object anywhere in s that is not closed with
// additionalProperties: false.
func ClosedSchema(s *jsonschema.Schema) error { return closed(s, "") }

func closed(s *jsonschema.Schema, path string) error {
	if s == nil {
		return nil
	}
	if isObject(s) {
		if !isFalse(s.AdditionalProperties) {
			return fmt.Errorf("%w: object at %q lacks additionalProperties: false", ErrOpenSchema, "/"+path)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := closed(s.Properties[k], join(path, k)); err != nil {
			return err
		}
	}
	if err := closed(s.Items, path+"[]"); err != nil {
		return err
	}
	for _, sub := range slices.Concat(s.AnyOf, s.OneOf, s.AllOf) {
		if err := closed(sub, path); err != nil {
			return err
		}
	}
	return nil
}

// isFalse reports the schema that accepts nothing ({"not": {}} or false).
func isFalse(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil {
		return false
	}
	b, err := json.Marshal(s.Not)
	return err == nil && string(b) == "true"
}

func isObject(s *jsonschema.Schema) bool {
	return s.Type == "object" || slices.Contains(s.Types, "object") || len(s.Properties) > 0
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// handler is the MCP handler of t: caller and scope, argument validation,
// the typed handler, the output encoded once (text and structured content
// share the bytes), and every error through toolResult. The output is not
// validated here: Register proved the Out type sound, so every value of it
// matches the output schema, and validating each ~10 KB digest cost about a
// sixth of the service's CPU (docs/BENCHMARKS.md, "MCP: get_trip").
func (t *Tool) handler(env *Env) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller, ok := env.Caller(req)
		if !ok {
			return env.toolResult(ctx, t, nil, &Error{Code: CodeUnauthenticated, Message: "no verified caller for this call"}), nil
		}
		if !caller.Has(t.Scope) {
			return env.toolResult(ctx, t, nil, &Error{Code: CodePermissionDenied, Message: "this tool needs the " + t.Scope + " scope, which the token does not grant"}), nil
		}
		raw := json.RawMessage(req.Params.Arguments)
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			raw = json.RawMessage("{}")
		}
		if !t.valid.has(raw) {
			if err := validateArguments(t.def.InputSchema.(*jsonschema.Schema), t.in, raw); err != nil {
				return env.toolResult(ctx, t, raw, err), nil
			}
			t.valid.add(raw)
		}
		ctx = WithCaller(ctx, caller)
		out, err := t.run(ctx, &call{env: env, tool: t, caller: caller, req: req, args: raw}, raw)
		if err != nil {
			return env.toolResult(ctx, t, raw, err), nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return env.toolResult(ctx, t, raw, fmt.Errorf("marshal %s output: %w", t.Name, err)), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
			StructuredContent: json.RawMessage(b),
		}, nil
	}
}

// validateArguments judges raw against the tool's schema and names the one
// argument at fault: an undeclared key first (sorted, so the answer does
// not depend on map order), then a missing required one, then whatever the
// schema validator finds.
func validateArguments(s *jsonschema.Schema, r *jsonschema.Resolved, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return invalid("", "the arguments are not valid JSON")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return invalid("", "the arguments must be a JSON object")
	}
	if err := unknownOrMissing(s, obj, ""); err != nil {
		return err
	}
	if err := r.Validate(&v); err != nil {
		return invalid(fieldOf(err.Error()), "an argument has the wrong type or value: "+bound(schemaMessage(err.Error()), 200))
	}
	return nil
}

func unknownOrMissing(s *jsonschema.Schema, obj map[string]any, path string) error {
	var unknown []string
	for k := range obj {
		if _, ok := s.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		known := slices.Sorted(mapsKeys(s.Properties))
		return invalid(join(path, bound(unknown[0], 64)), fmt.Sprintf("unknown argument %s: this tool does not take it; remove it (accepted here: %s)",
			quote(join(path, unknown[0])), strings.Join(known, ", ")))
	}
	for _, k := range s.Required {
		if _, ok := obj[k]; !ok {
			return invalid(join(path, k), fmt.Sprintf("missing required argument %q", join(path, k)))
		}
	}
	for _, k := range slices.Sorted(mapsKeys(obj)) {
		ps := s.Properties[k]
		switch val := obj[k].(type) {
		case map[string]any:
			if isObject(ps) && len(ps.Properties) > 0 {
				if err := unknownOrMissing(ps, val, join(path, k)); err != nil {
					return err
				}
			}
		case []any:
			if ps.Items != nil && isObject(ps.Items) {
				for i, e := range val {
					if m, ok := e.(map[string]any); ok {
						if err := unknownOrMissing(ps.Items, m, fmt.Sprintf("%s[%d]", join(path, k), i)); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// fieldOf extracts the first property path of a jsonschema validation
// message ("validating /properties/settings/properties/x: …") as a dotted
// argument name.
func fieldOf(msg string) string {
	i := strings.LastIndex(msg, "validating /properties/")
	if i < 0 {
		return ""
	}
	rest := msg[i+len("validating /properties/"):]
	if j := strings.IndexAny(rest, ": "); j >= 0 {
		rest = rest[:j]
	}
	parts := strings.Split(rest, "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "items":
			continue
		}
		out = append(out, parts[i])
	}
	return bound(strings.Join(out, "."), 64)
}

// schemaMessage keeps the last clause of a validator message, the one that
// says what is wrong.
func schemaMessage(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") {
		// keep "type: … has type string, want integer" style tails
		if j := strings.LastIndex(msg[:i], ": "); j >= 0 {
			return msg[j+2:]
		}
		return msg[i+2:]
	}
	return msg
}
