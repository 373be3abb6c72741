import { settings } from "@/server/config";
import { metricsAuthorized, scrape } from "@/server/ops/metrics";

export const dynamic = "force-dynamic";

/** Prometheus metrics, for the bearer of HARBOR_METRICS_TOKEN (server/ops/metrics.ts); 404 when it is not set. */
export async function GET(request: Request) {
  const token = settings().metricsToken;
  if (!token) {
    return Response.json(
      { error: { code: "NOT_FOUND", message: "Metrics are off: set HARBOR_METRICS_TOKEN to read them." } },
      { status: 404 },
    );
  }
  if (!metricsAuthorized(request.headers.get("authorization"), token)) {
    return Response.json(
      { error: { code: "UNAUTHENTICATED", message: "Send the metrics token as a bearer token." } },
      { status: 401, headers: { "www-authenticate": 'Bearer realm="harbor-metrics"' } },
    );
  }
  const { body, contentType } = await scrape();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
