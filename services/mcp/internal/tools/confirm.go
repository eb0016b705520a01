package tools

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/services/mcp/internal/seal"
)

// confirmationTTL is how long a confirmation token can be used.
const confirmationTTL = 10 * time.Minute

// confirmPurpose separates confirmation tokens from every other sealed token.
const confirmPurpose = "roadbook-mcp/confirmation/v1"

// guarantee is what a confirmation by token does and does not mean, said in
// every answer that carries one (ADR-080 §9, docs/design/adr/080-mcp-tools.md).
const guarantee = "A confirmation token guarantees only that this impact was shown in the transcript, that the second call " +
	"carries exactly the same arguments on the same trip version, and that the impact is still this one when it acts (otherwise it is refused); " +
	"it does not mean a person agreed. Ask the person before using it."

// confirmClaims is what a confirmation token binds. Impact is the digest
// of the impact the token was offered with: a version alone does not pin
// what the act destroys (sharing again does not move the version, so an
// unshare token would revoke a link whose impact was never shown).
type confirmClaims struct {
	User    string `json:"u"`
	Tool    string `json:"t"`
	Args    string `json:"a"`
	Version int64  `json:"v"`
	Impact  string `json:"i"`
	// Link is the share link the impact showed would stop working, which
	// the act names so that it revokes that link or nothing.
	Link string `json:"l,omitempty"`
}

// impactDigest is what a token binds of an impact: its deterministic wire
// bytes, hashed. Any replica computes the same digest from the same trip
// state, so the token stays verifiable without a shared store.
func impactDigest(imp *roadbookv1.Impact) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(imp)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// confirmOut is the answer of the three confirmed tools.
type confirmOut struct {
	Status            string    `json:"status" jsonschema:"confirmation_required (nothing changed yet), done, or declined (the person said no; nothing changed)"`
	TripID            string    `json:"tripId"`
	Version           int64     `json:"version" jsonschema:"the trip version now"`
	Impact            *Impact   `json:"impact,omitempty" jsonschema:"what the action loses, computed on version"`
	ConfirmationToken string    `json:"confirmationToken,omitempty" jsonschema:"pass it back with the same arguments to act"`
	ExpiresAt         string    `json:"expiresAt,omitempty"`
	ConfirmedBy       string    `json:"confirmedBy,omitempty" jsonschema:"token or person (asked through the client)"`
	Guarantee         string    `json:"guarantee,omitempty"`
	Settings          *Settings `json:"settings,omitempty"`
	Deleted           bool      `json:"deleted,omitempty"`
	Revoked           bool      `json:"revoked,omitempty"`
	Next              *Next     `json:"next,omitempty"`
}

// confirmable is one destructive action: its impact (validate_only) and
// the act itself, both through the API.
type confirmable struct {
	tripID      string
	version     int64
	token       *string
	explicitKey *string
	impact      func(ctx context.Context, version int64) (*roadbookv1.Impact, int64, error)
	// act acts at version under key; link is the share link the confirmed
	// impact showed would stop working ("" for none).
	act func(ctx context.Context, version int64, key *string, link string) (confirmOut, error)
}

// confirmFlow runs the two-step confirmation of MCP §7: without a token,
// the impact and (where the client can ask its person) a direct question,
// else a token; with a token, the act — only if the arguments are the ones
// the token was issued for, the trip is still at the version the impact
// described and the impact computed now is the one the token was offered
// with, otherwise a refusal with a fresh impact.
func (c *call) confirmFlow(ctx context.Context, x confirmable) (confirmOut, error) {
	digest, err := c.argDigest("confirmationToken", "idempotencyKey")
	if err != nil {
		return confirmOut{}, err
	}
	if x.token == nil {
		imp, v, err := x.impact(ctx, x.version)
		if err != nil {
			return confirmOut{}, err
		}
		if asked, yes := c.askPerson(ctx, imp); asked {
			if !yes {
				return confirmOut{Status: "declined", TripID: x.tripID, Version: v, Impact: impactOut(imp), ConfirmedBy: "person"}, nil
			}
			shown, err := impactDigest(imp)
			if err != nil {
				return confirmOut{}, err
			}
			key, err := c.idempotencyKey(x.explicitKey, shown)
			if err != nil {
				return confirmOut{}, err
			}
			out, err := x.act(ctx, v, key, imp.GetShareLinkRevoked())
			if err != nil {
				return confirmOut{}, err
			}
			out.Status, out.ConfirmedBy = "done", "person"
			return out, nil
		}
		return c.offerToken(x.tripID, v, digest, imp, nil)
	}
	var cl confirmClaims
	switch err := c.env.Confirmations.Open(confirmPurpose, *x.token, c.env.Clock(), &cl); {
	case errors.Is(err, seal.ErrExpired):
		return confirmOut{}, invalid("confirmationToken", "the confirmation token has expired: call "+c.tool.Name+" again without confirmationToken for a fresh impact")
	case err != nil || cl.User != c.caller.UserID || cl.Tool != c.tool.Name:
		return confirmOut{}, invalid("confirmationToken", "the confirmation token is not valid: call "+c.tool.Name+" without confirmationToken to get one")
	case cl.Args != digest:
		return confirmOut{}, invalid("confirmationToken", "the arguments differ from the ones the confirmation token was issued for; nothing was done: call "+c.tool.Name+" without confirmationToken to see the impact of these arguments")
	}
	if err := c.sameImpact(ctx, x, cl); err != nil {
		return confirmOut{}, err
	}
	key, err := c.idempotencyKey(x.explicitKey, cl.Impact)
	if err != nil {
		return confirmOut{}, err
	}
	out, err := x.act(ctx, cl.Version, key, cl.Link)
	var ce *connect.Error
	if errors.As(err, &ce) {
		if e := fromAPI(ce, c.tool); e.Code == CodeVersionConflict && e.CurrentVersion != nil {
			return confirmOut{}, c.moved(ctx, x, *e.CurrentVersion)
		}
	}
	if err != nil {
		return confirmOut{}, err
	}
	out.Status, out.ConfirmedBy, out.Guarantee = "done", "token", guarantee
	return out, nil
}

// sameImpact recomputes the impact the token's act would have and refuses
// the token when it is not the impact the token was offered with — the
// trip shared again since, say, so the link the act would revoke is not the
// one the person saw. The refusal carries the impact now and a fresh token.
// A trip that moved is moved's refusal; a trip or link that is gone lets
// the act answer (a retry of a confirmed call replays its first answer
// within the idempotency window, and is not found after it).
func (c *call) sameImpact(ctx context.Context, x confirmable, cl confirmClaims) error {
	imp, v, err := x.impact(ctx, cl.Version)
	var ce *connect.Error
	if errors.As(err, &ce) {
		switch e := fromAPI(ce, c.tool); {
		case e.Code == CodeVersionConflict && e.CurrentVersion != nil:
			return c.moved(ctx, x, *e.CurrentVersion)
		case e.Code == CodeNotFound:
			return nil
		}
	}
	if err != nil {
		return err
	}
	now, err := impactDigest(imp)
	if err != nil {
		return err
	}
	if now == cl.Impact {
		return nil
	}
	offer, err := c.offerToken(x.tripID, v, cl.Args, imp, nil)
	if err != nil {
		return err
	}
	return &Error{Code: CodeConfirmationRequired, CurrentVersion: &v, Impact: offer.Impact, Next: offer.Next,
		Message: "the impact changed since this confirmationToken was issued (for instance the trip was shared again, so another link would be revoked); " +
			"nothing was done and the token cannot be used. Show the new impact to the person and, if they still want it, call " + c.tool.Name +
			" again with the new confirmationToken (or without one for a fresh impact)"}
}

// moved refuses a confirmed call whose trip changed since the impact was
// computed, with the impact on the current version and a fresh token for
// the same arguments at that version.
func (c *call) moved(ctx context.Context, x confirmable, current int64) error {
	imp, v, err := x.impact(ctx, current)
	if err != nil {
		return err
	}
	var args map[string]any
	if err := json.Unmarshal(c.args, &args); err != nil {
		return err
	}
	delete(args, "confirmationToken")
	args["version"] = v
	fresh, err := (&call{env: c.env, tool: c.tool, caller: c.caller, req: c.req, args: mustJSON(args)}).argDigest("confirmationToken", "idempotencyKey")
	if err != nil {
		return err
	}
	offer, err := c.offerToken(x.tripID, v, fresh, imp, args)
	if err != nil {
		return err
	}
	return &Error{Code: CodeConfirmationRequired, CurrentVersion: &v, Impact: offer.Impact, Next: offer.Next,
		Message: "the trip changed since the impact was computed; nothing was done. Read the new impact and, if the person still wants it, call again with the new confirmationToken"}
}

// offerToken answers "confirm this": the impact and a token bound to the
// caller, the tool, the argument digest, the version and the impact.
func (c *call) offerToken(tripID string, version int64, digest string, imp *roadbookv1.Impact, args map[string]any) (confirmOut, error) {
	exp := c.env.Clock().Add(confirmationTTL)
	shown, err := impactDigest(imp)
	if err != nil {
		return confirmOut{}, err
	}
	tok, err := c.env.Confirmations.Seal(confirmPurpose, confirmClaims{User: c.caller.UserID, Tool: c.tool.Name, Args: digest, Version: version, Impact: shown,
		Link: imp.GetShareLinkRevoked()}, exp)
	if err != nil {
		return confirmOut{}, err
	}
	if args == nil {
		if err := json.Unmarshal(c.args, &args); err != nil {
			return confirmOut{}, err
		}
	}
	next := map[string]any{}
	for k, v := range args {
		if k != "idempotencyKey" {
			next[k] = v
		}
	}
	next["confirmationToken"] = tok
	return confirmOut{
		Status: "confirmation_required", TripID: tripID, Version: version, Impact: impactOut(imp),
		ConfirmationToken: tok, ExpiresAt: exp.UTC().Format(time.RFC3339), Guarantee: guarantee,
		Next: &Next{Tool: c.tool.Name, Arguments: next, Why: "nothing changed yet: show the impact to the person, and call again with these arguments only if they agree"},
	}, nil
}

// askPerson asks the human through the client, when the client declared
// elicitation. asked is false when it could not ask (then a token is used).
func (c *call) askPerson(ctx context.Context, imp *roadbookv1.Impact) (asked, yes bool) {
	if c.req == nil || c.req.Session == nil {
		return false, false
	}
	p := c.req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false, false
	}
	msg := "Roadbook: confirm " + strings.ReplaceAll(c.tool.Name, "_", " ") + "?"
	for _, s := range imp.GetSummary() {
		msg += "\n- " + s
	}
	res, err := c.req.Session.Elicit(ctx, &mcp.ElicitParams{
		Message: msg,
		RequestedSchema: &jsonschema.Schema{Type: "object", Required: []string{"confirm"}, Properties: map[string]*jsonschema.Schema{
			"confirm": {Type: "boolean", Title: "Confirm", Description: "Yes, do it; this cannot be undone"},
		}},
	})
	if err != nil {
		return false, false
	}
	ok, _ := res.Content["confirm"].(bool)
	return true, res.Action == "accept" && ok
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// confirmSchema documents confirmationToken.
func confirmSchema(s *jsonschema.Schema) {
	p := prop(s, "confirmationToken")
	p.MaxLength = intp(4096)
	p.Description = "leave out on the first call (it then changes nothing and returns the impact and a token); pass the returned token with the same arguments to act"
}

// ---- update_trip_settings

type updateTripSettingsIn struct {
	TripID            string        `json:"tripId"`
	Version           int64         `json:"version"`
	Settings          SettingsInput `json:"settings"`
	Title             *string       `json:"title,omitempty"`
	Repace            bool          `json:"repace,omitempty" jsonschema:"re-cut the days with the current pacing engine without changing a setting: for a trip whose settings show pacingEngine 1"`
	ConfirmationToken *string       `json:"confirmationToken,omitempty"`
	IdempotencyKey    *string       `json:"idempotencyKey,omitempty"`
}

func updateTripSettings() Tool {
	return define(spec{
		name: "update_trip_settings", title: "Change trip settings", scope: ScopeWrite,
		annotations: writing("Change trip settings", true, false),
		description: "Changes a trip's settings (rider preset, daily riding hours, planned rest days, daily distance cap, speed, fatigue, climbing penalty, " +
			"departure hour, e-bike mode, dates, accommodation kinds) and/or its title, or re-cuts the days with the current pacing engine (repace). " +
			"Pacing changes recut every day: manual day edits and chosen accommodations are lost. " +
			"Two steps: called without confirmationToken it changes nothing and returns the impact; if the client can ask its person, " +
			"they are asked directly. Otherwise it returns a confirmationToken (valid 10 minutes): show the impact to the person and, if they agree, " +
			"call again with the same arguments plus the token. " + guarantee + " If the trip changed in between, the call is refused with a fresh impact.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			settingsSchema(prop(s, "settings"))
			t := prop(s, "title")
			t.MinLength, t.MaxLength, t.Description = intp(1), intp(255), "new title, when changing it"
			confirmSchema(s)
			idempotencySchema(s)
		},
		fields: map[string]string{"settings.averageSpeedKmPerH": "settings.averageSpeedKmh", "settings.enabledAccommodationTypes": "settings.accommodationTypes",
			"settings.enabledAccommodationTypes.types": "settings.accommodationTypes"},
	}, func(ctx context.Context, c *call, in updateTripSettingsIn) (confirmOut, error) {
		req := func(version int64, validate bool, key *string) *roadbookv1.UpdateTripSettingsRequest {
			settings := in.Settings.pb()
			if settings == nil {
				settings = &roadbookv1.TripSettingsInput{}
			}
			return &roadbookv1.UpdateTripSettingsRequest{TripId: in.TripID, Version: version, Settings: settings, Title: in.Title, ValidateOnly: validate,
				IdempotencyKey: key, Repace: in.Repace}
		}
		return c.confirmFlow(ctx, confirmable{
			tripID: in.TripID, version: in.Version, token: in.ConfirmationToken, explicitKey: in.IdempotencyKey,
			impact: func(ctx context.Context, v int64) (*roadbookv1.Impact, int64, error) {
				r, err := c.env.API.Trips.UpdateTripSettings(ctx, connect.NewRequest(req(v, true, nil)))
				if err != nil {
					return nil, 0, err
				}
				return r.Msg.GetImpact(), r.Msg.GetVersion(), nil
			},
			act: func(ctx context.Context, v int64, key *string, _ string) (confirmOut, error) {
				r, err := c.env.API.Trips.UpdateTripSettings(ctx, connect.NewRequest(req(v, false, key)))
				if err != nil {
					return confirmOut{}, err
				}
				st := settings(r.Msg.GetSettings())
				return confirmOut{TripID: in.TripID, Version: r.Msg.GetVersion(), Settings: &st,
					Next: getTripNext(in.TripID, "the days are being recut with the new settings")}, nil
			},
		})
	})
}

// ---- unshare_trip

type tripConfirmIn struct {
	TripID            string  `json:"tripId"`
	Version           int64   `json:"version"`
	ConfirmationToken *string `json:"confirmationToken,omitempty"`
	IdempotencyKey    *string `json:"idempotencyKey,omitempty"`
}

func unshareTrip() Tool {
	return define(spec{
		name: "unshare_trip", title: "Revoke the public link", scope: ScopeWrite,
		annotations: writing("Revoke the public link", true, false),
		description: "Revokes the trip's public link: anyone holding the address loses access, and a later share_trip makes a different address. " +
			"Two steps: called without confirmationToken it changes nothing and returns the impact (the link that stops working); if the client can ask its person, " +
			"they are asked directly. Otherwise call again with the same arguments plus the returned confirmationToken (valid 10 minutes) once the person agrees. " +
			guarantee + " Does not move the version.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			confirmSchema(s)
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in tripConfirmIn) (confirmOut, error) {
		sh := c.env.API.Shares
		return c.confirmFlow(ctx, confirmable{
			tripID: in.TripID, version: in.Version, token: in.ConfirmationToken, explicitKey: in.IdempotencyKey,
			impact: func(ctx context.Context, v int64) (*roadbookv1.Impact, int64, error) {
				r, err := sh.UnshareTrip(ctx, connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: in.TripID, Version: v, ValidateOnly: true}))
				if err != nil {
					return nil, 0, err
				}
				return r.Msg.GetImpact(), r.Msg.GetVersion(), nil
			},
			act: func(ctx context.Context, v int64, key *string, link string) (confirmOut, error) {
				// The act revokes the link the person saw or nothing: a
				// re-share since is refused by the API, not revoked.
				var code *string
				if i := strings.LastIndex(link, "/s/"); i >= 0 {
					code = new(link[i+3:])
				}
				r, err := sh.UnshareTrip(ctx, connect.NewRequest(&roadbookv1.UnshareTripRequest{TripId: in.TripID, Version: v, IdempotencyKey: key, ShareCode: code}))
				if err != nil {
					return confirmOut{}, err
				}
				return confirmOut{TripID: in.TripID, Version: r.Msg.GetVersion(), Revoked: r.Msg.GetRevoked()}, nil
			},
		})
	})
}

// ---- delete_trip

func deleteTrip() Tool {
	return define(spec{
		name: "delete_trip", title: "Delete a trip", scope: ScopeWrite,
		annotations: writing("Delete a trip", true, false),
		description: "Deletes a trip and all its data (days, choices, waypoints, public link); it cannot be undone. " +
			"Two steps: called without confirmationToken it changes nothing and returns the impact; if the client can ask its person, they are asked directly. " +
			"Otherwise call again with the same arguments plus the returned confirmationToken (valid 10 minutes) once the person agrees. " +
			guarantee + " If the trip changed in between, the call is refused with a fresh impact.",
		input: func(s *jsonschema.Schema) {
			tripIDSchema(s)
			versionSchema(s)
			confirmSchema(s)
			idempotencySchema(s)
		},
	}, func(ctx context.Context, c *call, in tripConfirmIn) (confirmOut, error) {
		tr := c.env.API.Trips
		return c.confirmFlow(ctx, confirmable{
			tripID: in.TripID, version: in.Version, token: in.ConfirmationToken, explicitKey: in.IdempotencyKey,
			impact: func(ctx context.Context, v int64) (*roadbookv1.Impact, int64, error) {
				r, err := tr.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: in.TripID, Version: v, ValidateOnly: true}))
				if err != nil {
					return nil, 0, err
				}
				return r.Msg.GetImpact(), r.Msg.GetVersion(), nil
			},
			act: func(ctx context.Context, v int64, key *string, _ string) (confirmOut, error) {
				r, err := tr.DeleteTrip(ctx, connect.NewRequest(&roadbookv1.DeleteTripRequest{TripId: in.TripID, Version: v, IdempotencyKey: key}))
				if err != nil {
					return confirmOut{}, err
				}
				return confirmOut{TripID: in.TripID, Version: r.Msg.GetVersion(), Deleted: r.Msg.GetDeleted(),
					Next: &Next{Tool: "list_trips", Arguments: map[string]any{}, Why: "the trip is gone; list what remains"}}, nil
			},
		})
	})
}
