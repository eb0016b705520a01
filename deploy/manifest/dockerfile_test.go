package manifest_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
)

func TestDockerfile(t *testing.T) {
	t.Parallel()
	t.Run("the image is a static binary on distroless running as the uid the pods expect", func(t *testing.T) {
		t.Parallel()
		raw, err := os.ReadFile("../../Dockerfile")
		require.NoError(t, err)
		df := string(raw)
		froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(df, -1)
		require.GreaterOrEqual(t, len(froms), 2, "multi-stage")
		require.True(t, strings.HasPrefix(froms[len(froms)-1][1], "gcr.io/distroless/static"), "final stage %s", froms[len(froms)-1][1])
		require.Contains(t, df, "CGO_ENABLED=0")
		require.Regexp(t, `go build .*\./cmd/roadbook`, df)
		user := regexp.MustCompile(`(?m)^USER\s+(\d+)`).FindStringSubmatch(df)
		require.NotNil(t, user, "USER with a numeric uid, so runAsNonRoot can verify it")

		d := find(t, render(t, "overlays/prod"), "Deployment", "roadbook-api").Typed.(*appsv1.Deployment)
		require.Equal(t, user[1], strconv.FormatInt(*d.Spec.Template.Spec.SecurityContext.RunAsUser, 10))
	})
}
