// The planner's runtime configuration, served by the Go binary as
// /app/config.json (services/api/planner): one bundle for every deployment.
export interface PlannerConfig {
  apiUrl: string;
  oidc: { issuer: string; clientId: string; scope: string; audience?: string };
  tiles: { url: string; attribution: string; maxZoom: number };
}

export async function loadConfig(): Promise<PlannerConfig> {
  const res = await fetch("/app/config.json", { cache: "no-cache" });
  if (!res.ok) throw new Error(`config.json: HTTP ${res.status}`);
  return (await res.json()) as PlannerConfig;
}
