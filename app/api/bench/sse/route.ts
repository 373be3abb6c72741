import { settings } from "@/server/config";
import { benchFrames } from "@/server/transport/bench-sse";
import { sseResponse } from "@/server/edge/sse";

export const dynamic = "force-dynamic";

/**
 * The benchmark's baseline through Next's router (see server/transport/bench-sse.ts; served before
 * the router too, as the AG-UI endpoint is). Mounted only with HARBOR_BENCH=1.
 */
export async function POST(request: Request) {
  if (!settings().benchRoutes) {
    return Response.json({ error: { code: "NOT_FOUND", message: "Not found" } }, { status: 404 });
  }
  // Pings as the real route does, so the baseline carries the same timer per stream.
  return sseResponse(benchFrames(await request.json()), request.signal, { pingMs: settings().ssePingMs });
}
