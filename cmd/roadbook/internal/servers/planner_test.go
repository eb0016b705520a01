package servers

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlannerFlags(t *testing.T) {
	t.Parallel()
	t.Run("the API's issuer signs planner users in once a client id is given", func(t *testing.T) {
		t.Parallel()
		p := plannerFlags{clientID: "roadbook-planner", scope: "openid"}
		require.Equal(t, "https://id.example/realms/r", p.config("https://id.example/realms/r").OIDC.Issuer)
	})
	t.Run("without a client id the planner has no sign-in, and the API still starts", func(t *testing.T) {
		t.Parallel()
		p := plannerFlags{}
		require.Empty(t, p.config("https://id.example/realms/r").OIDC.Issuer)
	})
	t.Run("an issuer that is not a URL (the dev issuer's name) is never used", func(t *testing.T) {
		t.Parallel()
		p := plannerFlags{clientID: "x"}
		require.Empty(t, p.config("roadbook-dev").OIDC.Issuer)
	})
}
